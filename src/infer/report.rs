//! What an inference tells its caller besides its answer. The engine prints nothing itself:
//! warnings come back with the answer ([`Inferred`]), and statistics lines and ground-theory
//! dumps go, as they are made, to the [`Observer`] that the caller put in the options
//! (`--stats` and `--dump ground` install printing ones).

use std::fmt;
use std::rc::Rc;

use crate::infer::trace::TraceStep;
use crate::structure::Structure;

/// An inference's answer and the warnings it gave on the way, for the caller to show.
#[derive(Clone, Debug)]
pub struct Inferred<T> {
    pub value: T,
    pub warnings: Vec<String>,
    /// When a limit (Ctrl-C, time, memory) stopped the inference after it had found part of
    /// its answer: what stopped it (`interrupted (Ctrl-C) after 3 models ...`). The answer is
    /// then what was found so far.
    pub partial: Option<String>,
    /// The trace of the model search, when one was asked for (`stdoptions.trace`).
    pub trace: Option<Vec<TraceStep>>,
}

impl<T> Inferred<T> {
    pub fn new(value: T, warnings: Vec<String>) -> Inferred<T> {
        Inferred {
            value,
            warnings,
            partial: None,
            trace: None,
        }
    }

    /// With an empty trace when `traced` (an inference that ended before any search).
    pub fn with_empty_trace(mut self, traced: bool) -> Inferred<T> {
        if traced {
            self.trace = Some(Vec::new());
        }
        self
    }

    /// The answer changed by `f`, with the same warnings.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Inferred<U> {
        Inferred {
            value: f(self.value),
            warnings: self.warnings,
            partial: self.partial,
            trace: self.trace,
        }
    }
}

type Listener = Rc<dyn Fn(&str)>;
type ModelListener = Rc<dyn Fn(&Structure)>;

/// Where statistics and ground-theory dumps go while an inference runs; nowhere by default.
#[derive(Clone, Default)]
pub struct Observer {
    stats: Option<Listener>,
    ground: Option<Listener>,
    models: Option<ModelListener>,
}

impl Observer {
    /// Sends statistics lines (`[stats] ...` on the command line) to `listener`.
    pub fn with_stats(mut self, listener: impl Fn(&str) + 'static) -> Observer {
        self.stats = Some(Rc::new(listener));
        self
    }

    /// Sends the text of every ground theory, before it is solved, to `listener`.
    pub fn with_ground_dump(mut self, listener: impl Fn(&str) + 'static) -> Observer {
        self.ground = Some(Rc::new(listener));
        self
    }

    /// Sends every model of a model expansion to `listener` as soon as it is found (`idp -n`
    /// prints them so, and a reader that closes the pipe stops the enumeration).
    pub fn with_models(mut self, listener: impl Fn(&Structure) + 'static) -> Observer {
        self.models = Some(Rc::new(listener));
        self
    }

    /// Reports a model just found.
    pub fn model(&self, model: &Structure) {
        if let Some(listener) = &self.models {
            listener(model);
        }
    }

    /// The same observer without its model listener (for a search whose models are shown
    /// only once it is known to be final).
    pub fn without_models(&self) -> Observer {
        Observer {
            models: None,
            ..self.clone()
        }
    }

    /// Whether models are listened for ([`Observer::with_models`]).
    pub fn models_on(&self) -> bool {
        self.models.is_some()
    }

    /// Whether statistics are wanted (so that costly figures are only computed then).
    pub fn stats_on(&self) -> bool {
        self.stats.is_some()
    }

    /// Reports a statistics line, made by `line` only when someone listens.
    pub fn stat(&self, line: impl FnOnce() -> String) {
        if let Some(listener) = &self.stats {
            listener(&line());
        }
    }

    /// Whether ground theories are wanted.
    pub fn dumps_ground(&self) -> bool {
        self.ground.is_some()
    }

    /// Reports the text of a ground theory.
    pub fn ground_theory(&self, text: &str) {
        if let Some(listener) = &self.ground {
            listener(text);
        }
    }
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Observer")
            .field("stats", &self.stats.is_some())
            .field("ground", &self.ground.is_some())
            .field("models", &self.models.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn lines_reach_only_installed_listeners() {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let sink = seen.clone();
        let observer =
            Observer::default().with_stats(move |l| sink.borrow_mut().push(l.to_string()));
        observer.stat(|| "one".into());
        observer.ground_theory("not listened to");
        assert!(observer.stats_on() && !observer.dumps_ground());
        assert_eq!(*seen.borrow(), vec!["one".to_string()]);
        let mut computed = false;
        Observer::default().stat(|| {
            computed = true;
            String::new()
        });
        assert!(!computed, "nobody listens, so the line is not made");
    }
}
