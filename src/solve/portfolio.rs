//! A portfolio of CaDiCaL solvers on one formula, one thread each (`--threads N`).
//!
//! CaDiCaL's configuration decides more than anything else how long a hard search takes, and
//! no single one is best: a maximum clique proof takes 50 s in the default configuration and
//! 1.9 s in `sat` (always in stable mode), while PlayID's `incredible` takes 16 s in the default
//! and 0.3 s in `sat`, and the keys-and-gates rows are three times faster in the default. As
//! clasp does with `-t N`, every solver of the portfolio is given the same clauses,
//! definitions, sums and numbers, in the same order (so variables and sums have the same
//! numbers in each), and every search is raced: the first solver that answers wins, the
//! others are stopped at once (their terminators watch a flag) and wait for the next call.
//! Answers are exactly those of one solver: satisfiable or not is a property of the formula,
//! and every model is a model of it, so counts, optima and sets of distinct models are the
//! same; only which of several models comes first may differ.
//!
//! Threads own their solvers (a CaDiCaL instance and its propagators never cross a thread):
//! the portfolio sends each a batch of commands, shared by `Arc`, before each call, and the
//! winner sends back its model (or its failed assumptions). Learnt clauses are not exchanged:
//! a clause over a variable one solver has eliminated cannot be given to it during its search.
//!
//! Counting inside the search (blocking clauses kept by one solver's propagator) is one
//! solver's work: asked for it, the portfolio lets its other solvers go.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use super::{
    Cadical, DefinitionGraph, Implied, Lit, LpOptimum, RaceStop, Rational, SatResult, SatSolver,
    SearchStats,
};
use crate::limits::Until;

/// What changes a solver's formula, replayed in order by every solver.
enum Command {
    NewVar,
    Clause(Vec<Lit>),
    Definition(DefinitionGraph),
    Sum(Vec<(Lit, u64)>),
    SumAtLeast(usize, u64),
    IntVar(i64, i64),
    IntConstraint(Lit, Vec<(usize, i64)>, i64),
    RealVar(Option<Rational>, Option<Rational>),
    RealConstraint(Lit, Vec<(usize, Rational)>, Rational),
    RealObjective(Vec<(usize, Rational)>),
    CountInside(Vec<Lit>, usize),
    Deadline(Option<Instant>),
    /// A phase hint ([`SatSolver::prefer`]): the literal, and whether it is dropped.
    Prefer(Lit, bool),
}

/// What a solver's thread is asked.
enum Job {
    Apply(Arc<Vec<Command>>),
    Solve {
        /// The race it is part of (replies to an earlier race are told apart by it).
        race: u64,
        assumptions: Arc<Vec<Lit>>,
        conflicts: Option<u32>,
    },
    Implied(Vec<Lit>),
    Stats,
    Counted,
}

/// A solver's answer to a search.
struct Answer {
    result: SatResult,
    /// With a model: the value of every variable (index 0 unused).
    model: Vec<bool>,
    /// With a model: the value of every integer variable, and whether they were accepted
    /// undecided.
    ints: Vec<i64>,
    undecided: bool,
    /// With a model: the value of every real variable, and the real objective's least value.
    reals: Vec<Rational>,
    optimum: Option<LpOptimum>,
    /// Without a model: the assumptions it needed.
    failed: Vec<Lit>,
}

/// What a solver's thread replies (with its index).
enum Reply {
    /// The answer to the search of a race.
    Solved(u64, Answer),
    Implied(Implied),
    Stats(Option<SearchStats>),
    Counted(usize),
}

/// One solver's thread.
struct Worker {
    jobs: Sender<Job>,
    /// Stops its search of a race another solver has won.
    stop: Arc<RaceStop>,
    thread: Option<JoinHandle<()>>,
}

/// Several CaDiCaL solvers racing on one formula (see the module's doc).
pub struct Portfolio {
    workers: Vec<Worker>,
    replies: Receiver<(usize, Reply)>,
    /// Commands not yet sent.
    batch: Vec<Command>,
    vars: i32,
    sums: usize,
    ints: usize,
    reals: usize,
    searched: bool,
    /// The last search's answer (from its winner).
    answer: Option<Answer>,
    /// The number of the last race.
    races: u64,
    /// Whether that race is still being run (its replies are awaited; after it, a reply to it
    /// is one owed by a solver that was stopped).
    racing: bool,
}

/// The configurations of a portfolio of `n` solvers whose first is `first` (the one a single
/// solver would use; `None`: CaDiCaL's default): then the other of the default and `sat`
/// (stable mode only, which proofs of optima and long single-model searches favour), then
/// `unsat`, then the default and `sat` with other seeds and initial phases.
pub fn portfolio_configs(first: Option<&str>, n: usize) -> Vec<Option<String>> {
    let mut out = vec![first.map(str::to_string)];
    let second = match first {
        Some(c) if c.starts_with("sat") => None,
        _ => Some("sat".to_string()),
    };
    out.push(second);
    out.push(Some("unsat".to_string()));
    let mut k = 1;
    while out.len() < n {
        let base = if k % 2 == 1 { "default" } else { "sat" };
        out.push(Some(format!("{base},seed={k},phase={}", k / 2 % 2)));
        k += 1;
    }
    out.truncate(n.max(1));
    out
}

impl Portfolio {
    /// A portfolio of one solver per configuration, each on its own thread, stopped by the
    /// run's limits in `until`.
    pub fn new(until: &Until, configs: &[Option<String>]) -> Portfolio {
        let (reply, replies) = channel();
        let workers = configs
            .iter()
            .enumerate()
            .map(|(index, config)| Worker::start(index, until.clone(), config.clone(), &reply))
            .collect();
        Portfolio {
            workers,
            replies,
            batch: Vec::new(),
            vars: 0,
            sums: 0,
            ints: 0,
            reals: 0,
            searched: false,
            answer: None,
            races: 0,
            racing: false,
        }
    }

    /// The number of solvers racing.
    pub fn solvers(&self) -> usize {
        self.workers.len()
    }

    /// Sends the commands gathered so far to every solver.
    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let batch = Arc::new(std::mem::take(&mut self.batch));
        for w in &self.workers {
            // A thread that is gone has panicked; its reply's absence is noticed below.
            let _ = w.jobs.send(Job::Apply(batch.clone()));
        }
    }

    /// Asks the first solver `job` and returns its reply.
    fn ask_first(&mut self, job: Job) -> Option<Reply> {
        self.flush();
        self.workers[0].jobs.send(job).ok()?;
        self.receive().map(|(_, reply)| reply)
    }

    /// The next reply, after the replies to races that are over (from solvers that were
    /// stopped, sent after the race's winner had answered); `None` when every thread is gone.
    fn receive(&self) -> Option<(usize, Reply)> {
        loop {
            let (index, reply) = self.replies.recv().ok()?;
            match &reply {
                Reply::Solved(race, _) if !self.racing || *race != self.races => {}
                _ => return Some((index, reply)),
            }
        }
    }

    /// Races a search: the first decisive answer wins and stops the others, without waiting
    /// for them to stop (CaDiCaL looks at its terminator between steps of its search, and
    /// some steps on a large formula take tens of milliseconds): a solver still stopping
    /// takes its next job after, and a stop is for its race only.
    fn race(&mut self, assumptions: &[Lit], conflicts: Option<u32>) -> SatResult {
        self.searched = true;
        self.flush();
        self.races += 1;
        self.racing = true;
        let assumptions = Arc::new(assumptions.to_vec());
        let mut running: Vec<bool> = self
            .workers
            .iter()
            .map(|w| {
                w.jobs
                    .send(Job::Solve {
                        race: self.races,
                        assumptions: assumptions.clone(),
                        conflicts,
                    })
                    .is_ok()
            })
            .collect();
        let mut winner: Option<Answer> = None;
        let mut interrupted: Option<Answer> = None;
        while winner.is_none() && running.contains(&true) {
            let Some((index, Reply::Solved(_, answer))) = self.receive() else {
                break;
            };
            running[index] = false;
            if answer.result == SatResult::Interrupted {
                interrupted.get_or_insert(answer);
            } else {
                winner = Some(answer);
            }
        }
        self.racing = false;
        for (w, still) in self.workers.iter().zip(running) {
            if still {
                w.stop.stop(self.races);
            }
        }
        let answer = winner.or(interrupted);
        let result = answer.as_ref().map_or(SatResult::Interrupted, |a| a.result);
        self.answer = answer;
        result
    }

    /// Lets every solver but the first go.
    fn keep_first_only(&mut self) {
        self.flush();
        for w in self.workers.drain(1..) {
            w.finish();
        }
    }
}

impl Drop for Portfolio {
    fn drop(&mut self) {
        for w in self.workers.drain(..) {
            w.finish();
        }
    }
}

impl Worker {
    fn start(
        index: usize,
        until: Until,
        config: Option<String>,
        reply: &Sender<(usize, Reply)>,
    ) -> Worker {
        let (jobs, inbox) = channel();
        let stop = Arc::new(RaceStop::default());
        let race = stop.clone();
        let reply = reply.clone();
        let thread = std::thread::Builder::new()
            .name(format!("idp-sat-{index}"))
            .spawn(move || {
                let solver = Cadical::racing(until, config.as_deref(), Some(race.clone()));
                work(solver, &race, index, &inbox, &reply);
            })
            .ok();
        Worker { jobs, stop, thread }
    }

    /// Ends the thread (it is idle: every call waits for its reply) and waits for it.
    fn finish(mut self) {
        self.stop.stop(u64::MAX);
        drop(self.jobs);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A solver's thread: applies commands and answers jobs until the portfolio lets it go.
fn work(
    mut solver: Cadical,
    stop: &RaceStop,
    index: usize,
    inbox: &Receiver<Job>,
    reply: &Sender<(usize, Reply)>,
) {
    while let Ok(job) = inbox.recv() {
        let answer = match job {
            Job::Apply(batch) => {
                batch.iter().for_each(|c| apply(&mut solver, c));
                continue;
            }
            Job::Solve {
                race,
                assumptions,
                conflicts,
            } => {
                stop.run(race);
                let result = match conflicts {
                    Some(c) => solver.solve_limited(&assumptions, c),
                    None => solver.solve(&assumptions),
                };
                stop.run(0);
                Reply::Solved(race, answer(&mut solver, result, &assumptions))
            }
            Job::Implied(assumptions) => Reply::Implied(solver.implied(&assumptions)),
            Job::Stats => Reply::Stats(solver.search_stats()),
            Job::Counted => Reply::Counted(solver.counted_inside()),
        };
        if reply.send((index, answer)).is_err() {
            return;
        }
    }
}

fn apply(solver: &mut Cadical, command: &Command) {
    match command {
        Command::NewVar => {
            solver.new_var();
        }
        Command::Clause(c) => solver.add_clause(c),
        Command::Definition(g) => {
            solver.propagate_definition(g);
        }
        Command::Sum(terms) => {
            solver.add_sum(terms);
        }
        Command::SumAtLeast(sum, k) => {
            solver.sum_at_least(*sum, *k);
        }
        Command::IntVar(low, high) => {
            solver.add_int_var(*low, *high);
        }
        Command::IntConstraint(lit, terms, bound) => solver.add_int_constraint(*lit, terms, *bound),
        Command::RealVar(low, high) => {
            solver.add_real_var(low.clone(), high.clone());
        }
        Command::RealConstraint(lit, terms, bound) => {
            solver.add_real_constraint(*lit, terms, bound.clone())
        }
        Command::RealObjective(terms) => {
            solver.set_real_objective(terms);
        }
        Command::CountInside(lits, limit) => {
            solver.count_inside(lits, *limit);
        }
        Command::Deadline(at) => solver.set_call_deadline(*at),
        Command::Prefer(lit, forget) => solver.prefer(*lit, *forget),
    }
}

/// What a solver's search gives the portfolio.
fn answer(solver: &mut Cadical, result: SatResult, assumptions: &[Lit]) -> Answer {
    let mut out = Answer {
        result,
        model: Vec::new(),
        ints: Vec::new(),
        undecided: false,
        reals: Vec::new(),
        optimum: None,
        failed: Vec::new(),
    };
    match result {
        SatResult::Sat => {
            let vars = solver.num_vars() as Lit;
            out.model = std::iter::once(false)
                .chain((1..=vars).map(|v| solver.value(v)))
                .collect();
            out.ints = (0..solver.int_vars())
                .map(|v| solver.int_value(v))
                .collect();
            out.undecided = solver.integers_undecided();
            out.reals = (0..solver.real_vars())
                .map(|v| solver.real_value(v))
                .collect();
            out.optimum = solver.real_optimum();
        }
        SatResult::Unsat => {
            out.failed = assumptions
                .iter()
                .copied()
                .filter(|&a| solver.failed(a))
                .collect();
        }
        SatResult::Interrupted => {}
    }
    out
}

impl SatSolver for Portfolio {
    fn new_var(&mut self) -> Lit {
        self.vars += 1;
        self.batch.push(Command::NewVar);
        self.vars
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        self.batch.push(Command::Clause(clause.to_vec()));
    }

    fn prefer(&mut self, lit: Lit, forget: bool) {
        // Every solver gets the hint: a backbone's calls go faster in each.
        self.batch.push(Command::Prefer(lit, forget));
    }

    fn solve(&mut self, assumptions: &[Lit]) -> SatResult {
        self.race(assumptions, None)
    }

    fn solve_limited(&mut self, assumptions: &[Lit], conflicts: u32) -> SatResult {
        self.race(assumptions, Some(conflicts))
    }

    fn implied(&mut self, assumptions: &[Lit]) -> Implied {
        self.searched = true;
        match self.ask_first(Job::Implied(assumptions.to_vec())) {
            Some(Reply::Implied(implied)) => implied,
            _ => Implied::Unsupported,
        }
    }

    fn set_call_deadline(&mut self, at: Option<Instant>) {
        self.batch.push(Command::Deadline(at));
    }

    fn value(&mut self, lit: Lit) -> bool {
        let model = self.answer.as_ref().map_or(&[][..], |a| &a.model[..]);
        let value = model
            .get(lit.unsigned_abs() as usize)
            .copied()
            .unwrap_or(false);
        value == (lit > 0)
    }

    fn failed(&self, lit: Lit) -> bool {
        self.answer
            .as_ref()
            .is_some_and(|a| a.failed.contains(&lit))
    }

    fn num_vars(&self) -> usize {
        self.vars as usize
    }

    fn propagate_definition(&mut self, graph: &DefinitionGraph) -> bool {
        if self.searched {
            return false;
        }
        self.batch.push(Command::Definition(graph.clone()));
        true
    }

    /// The work of all the solvers together: their conflicts, decisions and unfounded sets
    /// added up.
    fn search_stats(&self) -> Option<SearchStats> {
        let mut waiting = 0;
        for w in &self.workers {
            if w.jobs.send(Job::Stats).is_ok() {
                waiting += 1;
            }
        }
        let mut total: Option<SearchStats> = None;
        while waiting > 0 {
            let Some((_, reply)) = self.receive() else {
                break;
            };
            waiting -= 1;
            let Reply::Stats(Some(s)) = reply else {
                continue;
            };
            let t = total.get_or_insert(SearchStats {
                nodes: s.nodes,
                ..SearchStats::default()
            });
            t.unfounded_sets += s.unfounded_sets;
            t.propagated += s.propagated;
            t.late_sets += s.late_sets;
            t.conflicts += s.conflicts;
            t.decisions += s.decisions;
        }
        total
    }

    fn count_inside(&mut self, lits: &[Lit], limit: usize) -> bool {
        if self.searched {
            return false;
        }
        self.keep_first_only();
        self.batch.push(Command::CountInside(lits.to_vec(), limit));
        true
    }

    fn counted_inside(&mut self) -> usize {
        match self.ask_first(Job::Counted) {
            Some(Reply::Counted(n)) => n,
            _ => 0,
        }
    }

    fn add_sum(&mut self, terms: &[(Lit, u64)]) -> Option<usize> {
        if self.searched {
            return None;
        }
        self.batch.push(Command::Sum(terms.to_vec()));
        self.sums += 1;
        Some(self.sums - 1)
    }

    fn sum_at_least(&mut self, sum: usize, threshold: u64) -> Lit {
        self.vars += 1;
        self.batch.push(Command::SumAtLeast(sum, threshold));
        self.vars
    }

    fn add_int_var(&mut self, low: i64, high: i64) -> Option<usize> {
        self.batch.push(Command::IntVar(low, high));
        self.ints += 1;
        Some(self.ints - 1)
    }

    fn add_int_constraint(&mut self, lit: Lit, terms: &[(usize, i64)], bound: i64) {
        self.batch
            .push(Command::IntConstraint(lit, terms.to_vec(), bound));
    }

    fn int_value(&self, v: usize) -> i64 {
        self.answer
            .as_ref()
            .and_then(|a| a.ints.get(v).copied())
            .unwrap_or(0)
    }

    fn integers_undecided(&mut self) -> bool {
        self.answer
            .as_mut()
            .is_some_and(|a| std::mem::take(&mut a.undecided))
    }

    fn add_real_var(&mut self, low: Option<Rational>, high: Option<Rational>) -> Option<usize> {
        self.batch.push(Command::RealVar(low, high));
        self.reals += 1;
        Some(self.reals - 1)
    }

    fn add_real_constraint(&mut self, lit: Lit, terms: &[(usize, Rational)], bound: Rational) {
        self.batch
            .push(Command::RealConstraint(lit, terms.to_vec(), bound));
    }

    fn real_value(&self, v: usize) -> Rational {
        self.answer
            .as_ref()
            .and_then(|a| a.reals.get(v).cloned())
            .unwrap_or_default()
    }

    fn set_real_objective(&mut self, terms: &[(usize, Rational)]) -> bool {
        self.batch.push(Command::RealObjective(terms.to_vec()));
        true
    }

    fn real_optimum(&self) -> Option<LpOptimum> {
        self.answer.as_ref().and_then(|a| a.optimum.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_is_for_its_race_only() {
        let stop = RaceStop::default();
        stop.stop(1);
        stop.run(2);
        assert!(
            !stop.is_stopped(),
            "a late stop of race 1 leaves race 2 alone"
        );
        stop.stop(2);
        assert!(stop.is_stopped());
        stop.run(0);
        assert!(!stop.is_stopped(), "no search, nothing to stop");
        stop.run(3);
        assert!(!stop.is_stopped());
        stop.stop(u64::MAX);
        assert!(stop.is_stopped(), "the portfolio's end stops every race");
    }

    /// `pigeons` pigeons in `holes` holes, as clauses over variables `p * holes + h + 1`.
    fn pigeonhole(solver: &mut dyn SatSolver, pigeons: i32, holes: i32) {
        let var = |p: i32, h: i32| p * holes + h + 1;
        for _ in 0..pigeons * holes {
            solver.new_var();
        }
        for p in 0..pigeons {
            solver.add_clause(&(0..holes).map(|h| var(p, h)).collect::<Vec<_>>());
        }
        for h in 0..holes {
            for p in 0..pigeons {
                for q in p + 1..pigeons {
                    solver.add_clause(&[-var(p, h), -var(q, h)]);
                }
            }
        }
    }

    #[test]
    fn configurations_start_with_the_chosen_one_and_differ() {
        assert_eq!(
            portfolio_configs(None, 4),
            vec![
                None,
                Some("sat".to_string()),
                Some("unsat".to_string()),
                Some("default,seed=1,phase=0".to_string())
            ]
        );
        assert_eq!(
            portfolio_configs(Some("sat"), 2),
            vec![Some("sat".to_string()), None]
        );
        assert_eq!(portfolio_configs(None, 1), vec![None]);
    }

    /// A chain `x₁ ∨ x₂, x₂ ∨ x₃, …` has both alternating assignments as models: the phase
    /// hints of every solver choose which one a race answers, and forgotten, they are gone.
    #[test]
    fn phase_hints_reach_every_solver() {
        let mut portfolio = Portfolio::new(&Until::default(), &portfolio_configs(None, 2));
        let vars: Vec<Lit> = (0..16).map(|_| portfolio.new_var()).collect();
        for pair in vars.windows(2) {
            portfolio.add_clause(pair);
        }
        for flip in [1, -1] {
            let wanted: Vec<Lit> = (vars.iter().enumerate())
                .map(|(k, &v)| if k % 2 == 0 { flip * v } else { -flip * v })
                .collect();
            for &l in &wanted {
                portfolio.prefer(l, false);
            }
            assert_eq!(portfolio.solve(&[]), SatResult::Sat);
            assert!(wanted.iter().all(|&l| portfolio.value(l)), "{flip}");
            for &l in &wanted {
                portfolio.prefer(l, true);
            }
        }
    }

    #[test]
    fn a_race_answers_as_one_solver_does() {
        let mut portfolio = Portfolio::new(&Until::default(), &portfolio_configs(None, 3));
        assert_eq!(portfolio.solvers(), 3);
        pigeonhole(&mut portfolio, 4, 4);
        let sum = portfolio
            .add_sum(&[(1, 1), (2, 1), (3, 1), (4, 1)])
            .unwrap();
        // A model: every pigeon in a hole, no two in one.
        assert_eq!(portfolio.solve(&[]), SatResult::Sat);
        for h in 0..4 {
            let in_hole = (0..4).filter(|p| portfolio.value(p * 4 + h + 1)).count();
            assert_eq!(in_hole, 1);
        }
        // Pigeon 0 kept out of every hole: the failed assumptions are those four.
        let out: Vec<Lit> = (1..=4).map(|v| -v).collect();
        assert_eq!(portfolio.solve(&out), SatResult::Unsat);
        assert!(out.iter().all(|&l| portfolio.failed(l)));
        // A bound on a sum, made after searches: pigeon 0 in two holes is impossible.
        assert_eq!(
            portfolio.add_sum(&[(1, 1)]),
            None,
            "sums come before searches"
        );
        let two = portfolio.sum_at_least(sum, 2);
        assert_eq!(two, 17);
        assert_eq!(portfolio.solve(&[two]), SatResult::Unsat);
        assert_eq!(portfolio.solve(&[-two]), SatResult::Sat);
        // Later clauses reach every solver: a fifth pigeon with the holes of the first.
        let extra = portfolio.new_var();
        portfolio.add_clause(&[extra]);
        for h in 0..4 {
            portfolio.add_clause(&[-extra, -(h + 1)]);
        }
        for _ in 0..3 {
            assert_eq!(portfolio.solve(&[]), SatResult::Unsat);
        }
        let stats = portfolio.search_stats().expect("statistics");
        assert!(stats.decisions > 0);
    }
}
