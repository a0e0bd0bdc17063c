//! The settlement of a deal: its outcome for the Player, the chips it moves, and the stakes for
//! the next deal; and the end of the session, when the Widow's Fund is split or left.

use crate::Events;
use smallvec::smallvec;

use crate::cards::Suit;
use crate::chips::{Account, Chips};
use crate::error::RuleViolation;
use crate::seat::{BySeat, Seat};

use super::contract::contract_name;
use super::funds::{from_each, to_each};
use super::{Contract, DealLine, Event, Outcome, Recording, Tridge, WidowsChoice, TRICKS};

/// Classifies a normal contract's trick split: Player's tricks against each defender's.
///
/// A win when the Player has more than each defender; a double loss when one defender has more
/// than every other player (that defender defeats the Player); otherwise a draw (4:4:1, 3:3:3,
/// 1:4:4, and with an In-comer any tie for the most).
pub fn classify(player: u8, defenders: &[(Seat, u8)]) -> Outcome {
    let most = defenders.iter().map(|(_, t)| *t).max().unwrap_or(0);
    let leaders: Vec<Seat> = defenders.iter().filter(|(_, t)| *t == most).map(|(s, _)| *s).collect();
    if player > most {
        Outcome::Win
    } else if most > player && leaders.len() == 1 {
        Outcome::DoubleLoss { defeating: leaders[0] }
    } else {
        Outcome::Draw
    }
}

/// Half the Game Fund for a Fixed Trick missed by one: exact for an even fund; the text's
/// figures for 15 (10) and 45 (20); otherwise half rounded to the nearest 5, halves up.
pub fn half_fund(fund: Chips) -> Chips {
    let f = fund.get();
    let half = match f {
        _ if f % 2 == 0 => f / 2,
        15 => 10,
        45 => 20,
        _ => (f + 5) / 10 * 5,
    };
    Chips::new(half)
}

/// What the settlement of a deal needs, however it was recorded.
pub(super) struct Summary {
    pub(super) player: Seat,
    pub(super) contract: Contract,
    pub(super) tricks: BySeat<u8>,
    pub(super) honours: u8,
    pub(super) stopped: bool,
    pub(super) all_tricks_after_fifth: bool,
    pub(super) recording: Recording,
}

impl Tridge {
    /// Scores a finished deal, books its chips, and starts the next deal.
    pub(super) fn settle(&mut self, s: Summary) -> Result<Events<Event>, RuleViolation> {
        let players = self.players;
        let p = s.player;
        let payers: Vec<Seat> = Seat::all(players).filter(|x| *x != p).collect();
        let contract = s.contract;
        let trumps = contract.trumps();
        let m = if trumps == Suit::Diamonds { 2 } else { 1 };
        let hm = Chips::new(i64::from(s.honours) * m);
        let h_reason = format!("honours: {} × {m}", s.honours);
        let pt = s.tricks[p];
        let defenders: Vec<(Seat, u8)> = self
            .deal
            .active
            .iter()
            .filter(|x| **x != p)
            .map(|x| (*x, s.tricks[*x]))
            .collect();
        let outcome = match contract {
            Contract::NoTricks { .. } if pt == 0 => Outcome::Win,
            Contract::AllTricks { .. } if pt == TRICKS => Outcome::Win,
            Contract::NoTricks { .. } | Contract::AllTricks { .. } => Outcome::Lost,
            Contract::FixedTrick { tricks, .. } => match pt.abs_diff(tricks) {
                0 => Outcome::Exact,
                1 => Outcome::OffByOne,
                _ => Outcome::OffByMore,
            },
            _ if s.stopped || s.all_tricks_after_fifth => Outcome::Win,
            _ => classify(pt, &defenders),
        };
        let all_tricks_made = s.all_tricks_after_fifth.then_some(pt == TRICKS);
        let name = contract_name(contract);
        let mut b = self.booker();
        let f = b.pots.game;
        let w = b.pots.widows;
        let extra = Chips::new(contract.extra());
        match outcome {
            Outcome::Win | Outcome::Exact => {
                b.game_fund_won(&format!("{name} won by {p}: the Game Fund"), p, f)?;
                b.pots.raised = false;
                if contract.with_widows() {
                    b.one(
                        format!("{name} won by {p}: the Widow's Fund"),
                        Account::WidowsFund,
                        Account::Seat(p),
                        w,
                    )?;
                }
                let extra = match contract {
                    Contract::FixedTrick { tricks, .. } => Chips::new(match tricks {
                        1 => 20,
                        2 => 10,
                        _ => 5,
                    }),
                    _ => extra,
                };
                b.collect_from_each(&format!("{name} won by {p}: {extra} from each"), &payers, p, extra)?;
                b.collect_from_each(&format!("{name} won by {p}: {h_reason} from each"), &payers, p, hm)?;
                if let Some(made) = all_tricks_made {
                    if made {
                        // Whatever the Widow's Fund still holds (nothing if the contract won it).
                        let left = b.pots.widows;
                        b.one(
                            format!("All Tricks made by {p}: the Widow's Fund"),
                            Account::WidowsFund,
                            Account::Seat(p),
                            left,
                        )?;
                        b.collect_from_each(
                            &format!("All Tricks made by {p}: 40 from each"),
                            &payers,
                            p,
                            Chips::new(40),
                        )?;
                    } else {
                        b.one(
                            format!("All Tricks failed by {p}: the Widow's Fund matched"),
                            Account::Seat(p),
                            Account::WidowsFund,
                            w,
                        )?;
                        b.pay_each(
                            &format!("All Tricks failed by {p}: 40 to each"),
                            p,
                            &payers,
                            Chips::new(40),
                        )?;
                    }
                }
            }
            Outcome::Draw | Outcome::DoubleLoss { .. } | Outcome::Lost => {
                let what = match outcome {
                    Outcome::Draw => "drawn",
                    Outcome::DoubleLoss { .. } => "lost (double loss)",
                    _ => "lost",
                };
                b.pay_game_fund(&format!("{name} {what} by {p}: the Game Fund matched"), &[(p, f)])?;
                b.pots.raised = true;
                if let Outcome::DoubleLoss { defeating } = outcome {
                    b.one(
                        format!("{name} lost by {p}: the Game Fund's value to the defeating Defender"),
                        Account::Seat(p),
                        Account::Seat(defeating),
                        f,
                    )?;
                }
                if contract.with_widows() {
                    b.one(
                        format!("{name} {what} by {p}: the Widow's Fund matched"),
                        Account::Seat(p),
                        Account::WidowsFund,
                        w,
                    )?;
                }
                b.pay_each(&format!("{name} {what} by {p}: {extra} to each"), p, &payers, extra)?;
                b.one(
                    format!("{name} {what} by {p}: {h_reason} into the Widow's Fund"),
                    Account::Seat(p),
                    Account::WidowsFund,
                    hm,
                )?;
            }
            Outcome::OffByOne => {
                let half = half_fund(f).min(f);
                b.game_fund_won(&format!("{name} missed by one by {p}: half the Game Fund"), p, half)?;
            }
            Outcome::OffByMore => {
                let penalty = match contract {
                    Contract::FixedTrick { tricks: 1, .. } => 5,
                    Contract::FixedTrick { tricks: 2, .. } => 4,
                    _ => 3,
                };
                b.pay_game_fund(
                    &format!("{name} missed by two or more by {p}: the Game Fund matched"),
                    &[(p, f)],
                )?;
                b.pots.raised = true;
                b.pay_each(
                    &format!("{name} missed by two or more by {p}: {penalty} to each"),
                    p,
                    &payers,
                    Chips::new(penalty),
                )?;
            }
        }
        let game_won = matches!(outcome, Outcome::Win | Outcome::Exact);
        // All Tricks undertaken decides the Widow's Fund: won if made; matched (not won) if failed,
        // even when the contract had won it before the sixth trick.
        let widows_won = all_tricks_made.unwrap_or(contract.with_widows() && game_won);
        let chip_events = b.events;
        let number = self.deal.number;
        let mut events = smallvec![Event::DealScored {
            deal: number,
            player: p,
            contract,
            tricks: s.tricks.values().to_vec(),
            honours: s.honours,
            outcome,
            all_tricks_made,
        }];
        events.extend(chip_events);
        events.extend(self.restake(game_won, widows_won)?);
        self.sheet.push(DealLine {
            deal: number,
            dealer: self.deal.dealer,
            player: Some(p),
            contract: Some(contract),
            tricks: s.tricks.values().to_vec(),
            honours: s.honours,
            outcome: Some(outcome),
            passed_out: false,
            void: false,
            revokes: self.deal.revokes.clone(),
            recording: Some(s.recording),
            chips: self.chips.values().to_vec(),
        });
        events.extend(self.next_deal()?);
        Ok(events)
    }

    /// Stakes for the next deal after a won fund: the Widow's Fund re-seeded after it was won;
    /// the Game Fund taken from the oldest Reserve, or re-seeded when none waits.
    fn restake(&mut self, game_won: bool, widows_won: bool) -> Result<Events<Event>, RuleViolation> {
        let players = self.players;
        let next = self.next_number()?;
        let (w_stake, f_stake) = (
            Chips::new(self.options.widows_stake),
            Chips::new(self.options.fund_stake),
        );
        let mut b = self.booker();
        b.deal = next;
        if widows_won {
            b.book(
                "the Widow's Fund re-seeded",
                from_each(Seat::all(players), Account::WidowsFund, w_stake),
            )?;
        }
        if game_won {
            b.pots.raised = false;
            b.pots.reserve_open = false;
            if let Some(reserve) = b.pots.reserves.first().copied() {
                b.one(
                    format!("Reserve {} brought into play as the Game Fund", reserve.number),
                    Account::Reserve(reserve.number),
                    Account::GameFund,
                    reserve.chips,
                )?;
                b.pots.reserves.remove(0);
            } else {
                let payments: Vec<(Seat, Chips)> = Seat::all(players).map(|s| (s, f_stake)).collect();
                b.pay_game_fund("the Game Fund re-seeded", &payments)?;
            }
        }
        Ok(b.events)
    }

    pub(super) fn settle_widows_fund(&mut self, choice: WidowsChoice) -> Result<Events<Event>, RuleViolation> {
        if !self.deal.is_fresh() {
            return Err(self.not_expected("settle_widows_fund"));
        }
        let players = self.players;
        let w = self.pots.widows;
        let (share, remainder) = match choice {
            WidowsChoice::Split => (
                Chips::new(w.get() / players as i64),
                Chips::new(w.get() % players as i64),
            ),
            WidowsChoice::Leave => (Chips::ZERO, w),
        };
        let mut b = self.booker();
        b.deal = b.deal.saturating_sub(1).max(1);
        b.book(
            format!("end of session: the Widow's Fund split, {share} each, {remainder} left in it"),
            to_each(Account::WidowsFund, Seat::all(players), share),
        )?;
        let mut events = b.events;
        events.push(Event::WidowsFundSettled {
            choice,
            share,
            remainder,
        });
        events.push(Event::GameFinished);
        self.finished = true;
        Ok(events)
    }
}
