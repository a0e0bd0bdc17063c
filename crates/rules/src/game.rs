//! The `Game` trait: what every game implements, and the one place where a refused move is
//! guaranteed to change nothing; `named_alike!` writes the associated types that every game
//! names alike in its own module.

use std::ops::RangeInclusive;

use serde::de::DeserializeOwned;
use serde::Serialize;
use smallvec::SmallVec;

use super::chips::Settlement;
use super::error::{RuleViolation, SetupError};
use super::games::GameId;
use super::seat::Seat;

/// One table option, for the catalogue: the organiser's form is built from these, so every
/// word here is shown to a club organiser as it stands.
#[derive(Clone, Copy, Debug)]
pub struct OptionDoc {
    /// The field's name in the game's options.
    pub name: &'static str,
    /// A short label for the form.
    pub label: &'static str,
    /// One sentence in the club's words.
    pub description: &'static str,
    pub kind: OptionKind,
}

/// What sort of value an option takes, so that a form can offer it as a control.
#[derive(Clone, Copy, Debug)]
pub enum OptionKind {
    /// One of the listed values (a string).
    Choice(&'static [Choice]),
    /// `true` or `false`.
    Toggle,
    /// A whole number from `min` to `max`; a default of `null` means "worked out" when left out.
    Number { min: i64, max: i64 },
    /// A list of whole numbers, each from `min` to `max` (such as hand sizes).
    Numbers { min: i64, max: i64, max_items: usize },
    /// A seat (0-based), shown as the player sitting there.
    Seat,
    /// An ordered list of the listed entries (such as the trump rotation), each at most once.
    SuitOrder(&'static [Choice]),
    /// An object `{"rule": value, ...}`: one of the listed rules, some with a field of their own.
    Rule(&'static [RuleChoice]),
}

/// One value of a `Choice` (or an entry of a `SuitOrder`) and its plain-words label.
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    pub value: &'static str,
    pub label: &'static str,
}

/// One rule of a `Rule` option, with the field it carries, if any.
#[derive(Clone, Copy, Debug)]
pub struct RuleChoice {
    pub value: &'static str,
    pub label: &'static str,
    /// The rule's own field: its name, label and kind (never itself a `Rule`).
    pub field: Option<(&'static str, &'static str, &'static OptionKind)>,
}

/// Score-sheet lines a game has finished and not yet handed over: history kept beside the
/// state, not in it. It is skipped by serde (`#[serde(skip)]` on the field) and equal to every
/// other, so snapshots, equality and the audit see only the state the rules need.
#[derive(Clone, Debug)]
pub struct DealLines<T>(Vec<T>);

impl<T> Default for DealLines<T> {
    fn default() -> Self {
        DealLines(Vec::new())
    }
}

impl<T> PartialEq for DealLines<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for DealLines<T> {}

impl<T> DealLines<T> {
    /// Adds the line of a deal just finished.
    pub fn push(&mut self, line: T) {
        self.0.push(line);
    }

    /// The lines held, oldest first.
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }

    fn take(&mut self) -> Vec<T> {
        std::mem::take(&mut self.0)
    }

    /// Puts back `kept` followed by `finished`.
    fn restore(&mut self, mut kept: Vec<T>, finished: Vec<T>) {
        kept.extend(finished);
        self.0 = kept;
    }
}

/// In a game's `impl Game` (or a stops game's `impl stops::Rules`): the associated types every
/// game names alike in its module (`Options`, `Move`, `Event`, `View`, `ScoreSheet`), its
/// score-sheet line `$line`, and its catalogue of options, `OPTION_DOCS`.
macro_rules! named_alike {
    ($line:ty) => {
        type Options = Options;
        type Move = Move;
        type Event = Event;
        type View = View;
        type ScoreSheet = ScoreSheet;
        type DealLine = $line;

        fn option_docs() -> &'static [$crate::OptionDoc] {
            OPTION_DOCS
        }
    };
}
pub(crate) use named_alike;

/// What one move caused, in order. Held inline up to two events (a card and the trick it ends,
/// a nomination, a bid): every move returns some, and a deal has dozens of moves, so a heap
/// allocation per move was most of the simulator's time. A deal's last move spills over.
pub type Events<E> = SmallVec<[E; 2]>;

/// A game as a state machine over moves. Implemented once per game; a game writes its rules in
/// `play`, and `apply` (provided) makes every move all-or-nothing.
pub trait Game: Clone + PartialEq + std::fmt::Debug + Serialize + DeserializeOwned + Send + Sync + 'static {
    const ID: GameId;
    const NAME: &'static str;
    const SEATS: RangeInclusive<usize>;

    /// Table options as a client sends them; every field has a default.
    type Options: Clone + Default + Serialize + DeserializeOwned;
    type Move: Clone + std::fmt::Debug + Serialize + DeserializeOwned;
    type Event: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned;
    /// The state as a scorer's phone needs it.
    type View: Serialize;
    /// Scores per deal and totals.
    type ScoreSheet: Serialize;
    /// One line of the score sheet: a finished deal. History, not state: the rules never read
    /// it, so it is kept out of the state that is cloned and snapshotted per move.
    type DealLine: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;

    fn option_docs() -> &'static [OptionDoc];

    /// A new game at the start of its first deal.
    ///
    /// # Errors
    /// When the player count is outside `SEATS` or an option is out of range.
    fn new(players: usize, options: Self::Options) -> Result<Self, SetupError>;

    /// The options this game was set up with, defaults filled in: `new(players, options())`
    /// gives back this game as it was set up (the audit rebuilds games that way).
    fn options(&self) -> Self::Options;

    /// The move's kind, as named in `View`'s legal moves.
    fn move_kind(mv: &Self::Move) -> &'static str;

    /// The seat a move is for, when it is one seat's.
    fn move_seat(mv: &Self::Move) -> Option<Seat>;

    /// The game's rules for one move of a game not yet finished: checks it and carries it out,
    /// returning the events it caused. It may leave `self` half-changed when it refuses the move;
    /// callers use `apply`, which never does.
    ///
    /// # Errors
    /// The rule the move breaks.
    fn play_move(&mut self, mv: &Self::Move) -> Result<Events<Self::Event>, RuleViolation>;

    /// Checks a move and applies it, returning the events it caused.
    ///
    /// # Errors
    /// `GameFinished` once the game is over, or the rule the move breaks; the state is then
    /// unchanged.
    fn apply(&mut self, mv: &Self::Move) -> Result<Events<Self::Event>, RuleViolation> {
        if self.is_finished() {
            return Err(RuleViolation::GameFinished);
        }
        // The one place "a refused move changes nothing" is made true: the rules run on a copy
        // that replaces the state only when they accept the move.
        // The lines kept so far are moved out around the copy, so a move never copies history.
        let kept = self.deal_lines_mut().take();
        let mut next = self.clone();
        match next.play_move(mv) {
            Ok(events) => {
                let finished = next.deal_lines_mut().take();
                *self = next;
                self.deal_lines_mut().restore(kept, finished);
                Ok(events)
            }
            Err(violation) => {
                self.deal_lines_mut().restore(kept, Vec::new());
                Err(violation)
            }
        }
    }

    /// Applies a move stored in the log, as `apply` does, except where an earlier engine accepted
    /// what this one refuses: a log stored then replays as it was recorded, with the events it
    /// recorded, so the audit and the hash chain stay as they were. New moves go through `apply`.
    ///
    /// # Errors
    /// As `apply`, for a move no engine ever accepted there.
    fn replay(&mut self, mv: &Self::Move) -> Result<Events<Self::Event>, RuleViolation> {
        self.apply(mv)
    }

    /// The score-sheet lines finished and not yet taken out. Never serialized, never part of
    /// the state's equality.
    fn deal_lines(&self) -> &DealLines<Self::DealLine>;

    fn deal_lines_mut(&mut self) -> &mut DealLines<Self::DealLine>;

    /// Takes out the lines the moves applied since the last call finished, oldest first. The
    /// service takes them after every move and stores them as rows, so the state it clones and
    /// snapshots holds at most one move's lines.
    fn take_deal_lines(&mut self) -> Vec<Self::DealLine> {
        self.deal_lines_mut().take()
    }

    /// The 1-based number of the deal being recorded, as the score sheet numbers deals; None once
    /// the game is over. A client names it to guard against recording into the wrong deal.
    fn deal_number(&self) -> Option<u16>;

    /// True between deals (and at the end): no card of the next deal is recorded yet, so a
    /// simulator can deal it.
    fn at_deal_boundary(&self) -> bool;

    fn is_finished(&self) -> bool;

    /// Each seat's running total, in seat order: points in a points game, chips held in a chip
    /// game. What a board or a session's standings show for the table.
    fn running_totals(&self) -> Vec<i64>;

    fn view(&self) -> Self::View;

    /// How the deal in hand's tricks are won, as data a phone can follow without the service
    /// (`TrickPlan`): Some while the deal's cards are being entered one by one and its trumps are
    /// known, for a game whose tricks follow suit. None otherwise (a game without tricks, Tricky
    /// Dick's tricks won by the colours laid, a deal entered as a result).
    fn trick_plan(&self) -> Option<crate::trick::TrickPlan> {
        None
    }

    /// The score sheet from the lines of the deals finished (`lines`, oldest first, as taken out
    /// by `take_deal_lines`) and the state (totals, winners).
    fn score_sheet_of(&self, lines: &[Self::DealLine]) -> Self::ScoreSheet;

    /// The score sheet from the lines this value still holds: the whole sheet for an engine used
    /// on its own (tests, simulations), whose lines are never taken out.
    fn score_sheet(&self) -> Self::ScoreSheet {
        self.score_sheet_of(self.deal_lines().as_slice())
    }

    /// The chips a new table moves before any move (opening chips from the bank, first stakes).
    fn opening_settlements(&self) -> Vec<Settlement> {
        Vec::new()
    }

    /// The chips that the events of one move move. A pure function of the events, so that the
    /// ledger can be rebuilt from the log and checked against what was booked.
    fn settlements(_events: &[Self::Event]) -> Vec<Settlement> {
        Vec::new()
    }
}
