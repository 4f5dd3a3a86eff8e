//! How one exploration reads the witness (decision 97, issue 33 item 3): a value the search is
//! handed, carrying its data (the values a test-vector run or a guessing run takes), what it
//! loosens or guesses, and so its direction, which the gate (`reading::conclude`) reads. The
//! search asks it what to do; no exploration consults separate flags.

use std::rc::Rc;

use crate::reading::Reading;
use crate::testvec::TestVector;

/// The reading of one exploration.
#[derive(Debug, Clone, Default)]
pub enum SearchReading {
    /// The witness as written: every step matches the transitions its place allows.
    #[default]
    AsWritten,
    /// Used only to double-check a rejection (decision 8): a step whose matching transitions
    /// all die may be skipped and one step may fire a chain of transitions; with `lines_only`,
    /// GraphML offsets are not used (issue 19, cause 4: offsets that could not be verified
    /// against this file). It loosens the witness: it may reject, never confirm.
    Permissive { lines_only: bool },
    /// Guessing run (decision 67): the automaton is followed, but each nondet value is a
    /// concrete guess (the witness's value for that call where it gives one, else 0), so the
    /// run needs no solver. It guesses: it may confirm, never reject.
    Guessed(Rc<TestVector>),
    /// Test-vector run (decision 52): the witness automaton is not followed; the program's
    /// nondet calls take these values in call order, and any error call confirms.
    TestVector(Rc<TestVector>),
}

impl SearchReading {
    /// The reading as the gate knows it: its name and declared direction (`aligned`: the
    /// offsets were aligned line by line with this file, decision 55). A test-vector run
    /// follows no automaton: it is exact for what it checks (its inputs alone).
    pub fn declared(&self, aligned: bool) -> Reading {
        match self {
            SearchReading::Permissive { .. } => Reading::PERMISSIVE,
            SearchReading::Guessed(_) => Reading::GUESSED_VALUES,
            SearchReading::AsWritten | SearchReading::TestVector(_) if aligned => Reading::ALIGNED,
            SearchReading::AsWritten | SearchReading::TestVector(_) => Reading::EXACT,
        }
    }

    /// Steps may be skipped and transitions chained (the permissive double check).
    pub fn loosens_matching(&self) -> bool {
        matches!(self, SearchReading::Permissive { .. })
    }

    /// GraphML offsets are set aside: transitions match by lines alone.
    pub fn lines_only(&self) -> bool {
        matches!(self, SearchReading::Permissive { lines_only: true })
    }

    /// The witness automaton decides which runs are explored (all but a test-vector run).
    pub fn follows_automaton(&self) -> bool {
        !matches!(self, SearchReading::TestVector(_))
    }

    /// The values a test-vector run gives the program's nondet calls, in call order.
    pub fn input_vector(&self) -> Option<&Rc<TestVector>> {
        match self {
            SearchReading::TestVector(v) => Some(v),
            _ => None,
        }
    }

    /// The guessed values of a guessing run.
    pub fn guessed_values(&self) -> Option<&Rc<TestVector>> {
        match self {
            SearchReading::Guessed(v) => Some(v),
            _ => None,
        }
    }

    /// Values are guessed (a guessing run).
    pub fn guesses(&self) -> bool {
        matches!(self, SearchReading::Guessed(_))
    }

    /// The search tells the explanation of a rejection what it sees: only a reading of the
    /// witness's own runs (not the permissive double check, not a test-vector run).
    pub fn explains(&self) -> bool {
        matches!(self, SearchReading::AsWritten | SearchReading::Guessed(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reading::Direction;

    /// A reading's behaviour and its direction come from one value: what loosens the witness
    /// may only reject, what guesses may only confirm, and a test-vector run is the witness's
    /// own input values (decisions 52, 67, 97).
    #[test]
    fn each_reading_declares_the_direction_of_what_it_does() {
        let values = Rc::new(TestVector::default());
        let cases = [
            (SearchReading::AsWritten, Direction::Exact, true, false),
            (SearchReading::Permissive { lines_only: true }, Direction::Over, true, false),
            (SearchReading::Guessed(values.clone()), Direction::Under, true, true),
            (SearchReading::TestVector(values), Direction::Exact, false, false),
        ];
        for (reading, direction, follows, guesses) in cases {
            assert_eq!(reading.declared(false).direction, direction, "{reading:?}");
            assert_eq!(reading.follows_automaton(), follows, "{reading:?}");
            assert_eq!(reading.guesses(), guesses, "{reading:?}");
            assert_eq!(reading.loosens_matching(), reading.declared(false).direction == Direction::Over);
            assert_eq!(reading.explains(), follows && !reading.loosens_matching(), "{reading:?}");
        }
        assert_eq!(SearchReading::AsWritten.declared(true).name, Reading::ALIGNED.name);
        assert!(SearchReading::Permissive { lines_only: true }.lines_only());
        assert!(!SearchReading::Permissive { lines_only: false }.lines_only());
    }
}
