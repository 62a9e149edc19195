//! Two problems open at once in one process, on two threads: each inference belongs to its own
//! run (`idp::limits::Run`, handed down in `Options::run`), so stopping, timing out or counting
//! progress in one leaves the other alone, and both answer as they would alone.

mod support;

use std::time::{Duration, Instant};

use idp::error::Limit;
use idp::infer::{self, check_model, Options};
use idp::limits::Run;
use support::{pigeonhole, program, theory_t_and_structure_s};

/// A map of five countries in three colours, with a definition: 6 models (BE and DE take two
/// colours, each other country the third).
const MAP: &str = "vocabulary V {
  type Country isa string
  type Colour isa string
  Border(Country, Country)
  Near(Country, Country)
  Colour(Country) : Colour
}
theory T : V {
  { Near(x, y) <- Border(x, y). Near(x, y) <- Border(y, x). }
  ! x y : Near(x, y) => Colour(x) ~= Colour(y).
}
structure S : V {
  Country = { BE; NL; LU; DE; FR }
  Colour = { red; green; blue }
  Border = { BE,NL; BE,LU; BE,DE; BE,FR; NL,DE; LU,DE; DE,FR }
}
";

/// All models of `text`'s theory T over S in `run`, each checked by the naive checker.
fn count_models(text: &str, run: Run) -> usize {
    let p = program(text);
    let (theory, structure) = theory_t_and_structure_s(&p);
    let options = Options {
        nbmodels: 0,
        run,
        ..Options::default()
    };
    let models = infer::modelexpand(&p, theory, structure, None, &options)
        .expect("model expansion succeeds")
        .value;
    for m in &models {
        check_model(&p, theory, m).expect("every model satisfies the theory");
    }
    models.len()
}

/// Model expansion of the pigeons in `run`: the limit that stopped it, and when.
fn pigeons_until_stopped(run: Run) -> (Option<Limit>, Instant) {
    // Twelve pigeons in eleven holes: no model, and a proof that takes a CDCL solver far
    // longer than these tests wait.
    let p = program(&pigeonhole(12, 11));
    let (theory, structure) = theory_t_and_structure_s(&p);
    let options = Options {
        run,
        ..Options::default()
    };
    let result = infer::modelexpand(&p, theory, structure, None, &options);
    let limit = match result {
        Ok(found) => panic!("the pigeons were answered: {} models", found.value.len()),
        Err(e) => e.limit_kind(),
    };
    (limit, Instant::now())
}

#[test]
fn stopping_one_problem_leaves_the_other_to_answer() {
    let stopped = Run::default();
    let hard = {
        let run = stopped.clone();
        std::thread::spawn(move || pigeons_until_stopped(run))
    };
    // The other problem is answered in full while the first one searches, and again after
    // the first one was stopped.
    let easy = std::thread::spawn(|| count_models(MAP, Run::default()));
    assert_eq!(easy.join().expect("the map thread"), 6);
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    stopped.interrupt();
    let (limit, at) = hard.join().expect("the pigeon thread");
    assert_eq!(limit, Some(Limit::Interrupted));
    assert!(
        at.duration_since(asked) < Duration::from_secs(5),
        "the stop took {:?}",
        at.duration_since(asked)
    );
    assert!(stopped.interrupted());
    let after = Run::default();
    assert_eq!(count_models(MAP, after.clone()), 6);
    assert!(!after.interrupted());
}

#[test]
fn a_run_out_of_time_stops_only_its_own_problem() {
    let short = Run::default();
    short.set_timeout(0.3);
    let hard = {
        let run = short.clone();
        std::thread::spawn(move || pigeons_until_stopped(run))
    };
    let unlimited = Run::default();
    let easy = {
        let run = unlimited.clone();
        std::thread::spawn(move || {
            // Still answering after the other run's time is over.
            std::thread::sleep(Duration::from_millis(600));
            count_models(MAP, run)
        })
    };
    let (limit, _) = hard.join().expect("the pigeon thread");
    assert_eq!(limit, Some(Limit::RunTimeout));
    assert_eq!(easy.join().expect("the map thread"), 6);
    assert_eq!(unlimited.reached(None), None);
}

#[test]
fn each_run_counts_its_own_sat_calls() {
    let (a, b) = (Run::default(), Run::default());
    let (ra, rb) = (a.clone(), b.clone());
    let ta = std::thread::spawn(move || count_models(MAP, ra));
    let tb = std::thread::spawn(move || count_models(MAP, rb));
    assert_eq!(ta.join().expect("thread a"), 6);
    assert_eq!(tb.join().expect("thread b"), 6);
    // Both searched; neither saw the other's calls (a run alone makes the same number).
    let alone = Run::default();
    assert_eq!(count_models(MAP, alone.clone()), 6);
    assert!(alone.meter().sat_calls() > 0);
    assert_eq!(a.meter().sat_calls(), alone.meter().sat_calls());
    assert_eq!(b.meter().sat_calls(), alone.meter().sat_calls());
}
