//! The nine tricks, card by card (with revokes found and the Player's stop after five), or a
//! whole deal given as its result; both end in the same settlement.

use crate::cards::Card;
use crate::error::RuleViolation;
use crate::seat::{BySeat, Seat};
use crate::trick::{Trick, TrickPlan};
use crate::Events;
use smallvec::smallvec;

use super::settlement::Summary;
use super::{ranking, Contract, Event, Recording, Stage, Tridge, TRICKS};

impl Tridge {
    /// The deal's tricks as data (`TrickPlan`) once they are being played: the contract's
    /// trumps trump every lead, the black aces follow trumps, each card has its place in its
    /// order (`ranking`); the active three play in turn. A phone without the service stops
    /// after the fifth trick where the Player may then stop.
    pub(super) fn plan(&self) -> Option<TrickPlan> {
        let d = &self.deal;
        if self.finished || d.stage != Stage::Playing {
            return None;
        }
        let trumps = d.contract?.trumps();
        let mut plan = TrickPlan::new(
            d.number,
            d.active.clone(),
            TRICKS,
            |_| Some(trumps),
            ranking::pack(),
            |c| if ranking::is_trump(c, trumps) { trumps } else { c.suit },
            |c| u8::try_from(ranking::strength(c, trumps)).unwrap_or(u8::MAX),
        );
        if d.contract.is_some_and(Contract::may_stop_after_five) {
            plan.pause_after.push(5);
        }
        Some(plan)
    }

    pub(super) fn play(&mut self, seat: Seat, card: Card) -> Result<Events<Event>, RuleViolation> {
        if self.deal.stage != Stage::Playing {
            return Err(self.not_expected("play"));
        }
        self.check_turn(seat)?;
        if !ranking::in_pack(card) {
            return Err(RuleViolation::CardNotInPack(card));
        }
        if self.deal.played.contains(card) {
            return Err(RuleViolation::CardAlreadyPlayed(card));
        }
        let contract = self.deal.contract.ok_or(RuleViolation::GameFinished)?;
        let trumps = contract.trumps();
        let d = &mut self.deal;
        let trick_no = d.tricks_done + 1;
        let mut events = Events::new();
        if d.may_stop {
            d.may_stop = false;
            d.all_tricks_undertaken = true;
            events.push(Event::AllTricksUndertaken { seat });
        }
        events.push(Event::CardPlayed {
            seat,
            card,
            trick: trick_no,
        });
        let follow = ranking::follow_suit(card, trumps);
        if let Some(revoke) = d.voids.revoke_proven(seat, follow, trick_no) {
            d.revokes.push(revoke);
            events.push(Event::RevokeDetected { revoke });
        }
        let led = d.trick.led().map(|c| ranking::follow_suit(c, trumps));
        d.voids.record(seat, follow, led, trick_no);
        d.played.insert(card);
        if Some(seat) == d.player {
            d.player_cards.push(card);
        }
        d.trick.push(seat, card);
        if !d.trick.is_complete(d.active.len()) {
            return Ok(events);
        }
        let cards: Vec<Card> = d.trick.plays().iter().map(|p| p.card).collect();
        let i = ranking::trick_winner(&cards, trumps).unwrap_or(0);
        let winner = d.trick.plays()[i].seat;
        d.tricks[winner] += 1;
        d.tricks_done = trick_no;
        events.push(Event::TrickWon {
            trick: trick_no,
            winner,
            cards: d.trick.cards(),
        });
        d.trick = Trick::new(winner);
        let player = d.player.unwrap_or(winner);
        if trick_no == 5 && d.tricks[player] == 5 && contract.may_stop_after_five() {
            d.may_stop = true;
            events.push(Event::MayStop { seat: player });
            return Ok(events);
        }
        if trick_no == TRICKS {
            let held = |c: Card| self.deal.player_cards.contains(&c);
            let honours = ranking::honours(held, trumps);
            let summary = Summary {
                player,
                contract,
                tricks: self.deal.tricks.clone(),
                honours,
                stopped: false,
                all_tricks_after_fifth: self.deal.all_tricks_undertaken,
                recording: Recording::CardByCard,
            };
            // No Tricks and Fixed Trick need a trump in the Player's hand, which (no exchange)
            // is exactly the nine cards played: report a bidder who held none.
            let needs_trump = matches!(contract, Contract::NoTricks { .. } | Contract::FixedTrick { .. });
            if needs_trump
                && !self.deal.in_comer
                && !self.deal.player_cards.iter().any(|c| ranking::is_trump(*c, trumps))
            {
                events.push(Event::TrumpNotHeld { seat: player });
            }
            events.extend(self.settle(summary)?);
        }
        Ok(events)
    }

    pub(super) fn stop(&mut self, seat: Seat, top_trumps: &[Card]) -> Result<Events<Event>, RuleViolation> {
        if !(self.deal.stage == Stage::Playing && self.deal.may_stop) {
            return Err(self.not_expected("stop"));
        }
        self.check_turn(seat)?;
        let contract = self.deal.contract.ok_or(RuleViolation::GameFinished)?;
        let trumps = contract.trumps();
        for card in top_trumps {
            if !ranking::is_trump(*card, trumps) || !ranking::in_pack(*card) {
                return Err(RuleViolation::HonoursImpossible {
                    reason: format!("{card} is not a trump with {trumps} as trumps"),
                });
            }
            if self.deal.played.contains(*card) {
                return Err(RuleViolation::CardAlreadyPlayed(*card));
            }
        }
        let held = |c: Card| self.deal.player_cards.contains(&c) || top_trumps.contains(&c);
        let honours = ranking::honours(held, trumps);
        let summary = Summary {
            player: seat,
            contract,
            tricks: self.deal.tricks.clone(),
            honours,
            stopped: true,
            all_tricks_after_fifth: false,
            recording: Recording::CardByCard,
        };
        let mut events = smallvec![Event::Stopped { seat }];
        events.extend(self.settle(summary)?);
        Ok(events)
    }

    #[expect(clippy::too_many_arguments, reason = "the fields of one result-only move")]
    pub(super) fn result(
        &mut self,
        player: Seat,
        contract: Contract,
        honours: Option<u8>,
        top_trumps: Option<&[Card]>,
        tricks: &[u8],
        stopped: bool,
        all_tricks_after_fifth: bool,
        in_comer: bool,
    ) -> Result<Events<Event>, RuleViolation> {
        if !(matches!(self.deal.stage, Stage::Auction(_)) && self.deal.is_fresh()) {
            return Err(self.not_expected("result"));
        }
        contract.check()?;
        let mut events = Events::new();
        if in_comer {
            if self.players != 4 || player != self.deal.dealer {
                return Err(RuleViolation::InvalidContract {
                    reason: "only the dealer of four can come in".into(),
                });
            }
            Self::check_in_comer_contract(contract)?;
            events.extend(self.come_in(player)?);
        }
        self.check_active(player)?;
        if tricks.len() != self.players {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: tricks.len(),
                expected: self.players,
            });
        }
        if let Some(out) = self.sitting_out() {
            if tricks[out.index()] != 0 {
                return Err(RuleViolation::SeatSittingOut { seat: out });
            }
        }
        let total: u32 = tricks.iter().map(|&t| u32::from(t)).sum();
        let expected = if stopped { 5 } else { u32::from(TRICKS) };
        if total != expected {
            return Err(RuleViolation::TricksDoNotAddUp { total, expected });
        }
        if stopped && (tricks[player.index()] != 5 || !contract.may_stop_after_five()) {
            return Err(RuleViolation::InvalidContract {
                reason: "stopping after five needs a normal contract and the Player's first five tricks".into(),
            });
        }
        if all_tricks_after_fifth && (stopped || !contract.may_stop_after_five() || tricks[player.index()] < 5) {
            return Err(RuleViolation::InvalidContract {
                reason: "All Tricks after the fifth needs a normal contract and the Player's first five tricks".into(),
            });
        }
        let trumps = contract.trumps();
        let max = ranking::max_honours(trumps);
        let honours = match (honours, top_trumps) {
            (Some(_), Some(_)) => {
                return Err(RuleViolation::HonoursImpossible {
                    reason: "give the honours count or the top trumps held, not both".into(),
                })
            }
            (Some(h), None) if h > max => {
                return Err(RuleViolation::HonoursImpossible {
                    reason: format!("{trumps} as trumps give at most {max} honours, not {h}"),
                })
            }
            (Some(h), None) => h,
            (None, Some(cards)) => {
                if let Some(card) = cards
                    .iter()
                    .find(|c| !ranking::is_trump(**c, trumps) || !ranking::in_pack(**c))
                {
                    return Err(RuleViolation::HonoursImpossible {
                        reason: format!("{card} is not a trump with {trumps} as trumps"),
                    });
                }
                ranking::honours(|c| cards.contains(&c), trumps)
            }
            (None, None) => 0,
        };
        self.deal.player = Some(player);
        self.deal.contract = Some(contract);
        let summary = Summary {
            player,
            contract,
            tricks: BySeat::from_vec(tricks.to_vec()),
            honours,
            stopped,
            all_tricks_after_fifth,
            recording: Recording::ResultOnly,
        };
        events.extend(self.settle(summary)?);
        Ok(events)
    }
}
