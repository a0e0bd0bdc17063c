"""Runs a small tournament end to end through the Python client generated from openapi/openapi.json.

A club session with eight entrants, a progressive Nomination Whist drive of two rounds at tables of
four, one deal a round: each round started, each table's deal entered as a move (as walkthrough.py
enters its deals, with `expected_version`), each round closed, then the results, their standings
and the CSV checked. Run by scripts/clients: python tournament.py BASE_URL (the generated package
on PYTHONPATH).
"""

import sys
import uuid

from tablekeeper_client import AuthenticatedClient, Client
from tablekeeper_client.api.auth import register
from tablekeeper_client.api.clubs import add_club_member
from tablekeeper_client.api.sessions import create_session
from tablekeeper_client.api.tables import submit_move
from tablekeeper_client.api.tournaments import (
    close_round,
    create_tournament,
    get_tournament_results,
    get_tournament_results_csv,
    start_round,
)
from tablekeeper_client.models import (
    AddMember,
    CreateSession,
    MoveResponse,
    MoveRule,
    NominationWhistCreateTournament,
    NominationWhistCreateTournamentGame,
    NominationWhistMoveResult,
    NominationWhistMoveResultKind,
    NominationWhistOptionsRequest,
    Problem,
    RegisterRequest,
    ScoringKind,
    SeatBounds,
    StartedRound,
    SubmitMove,
    TournamentFormatProgressive,
    TournamentFormatProgressiveKind,
    TournamentResults,
    TournamentScoring,
)
from tablekeeper_client.types import File

ENTRANTS = 8
ROUNDS = 2


def check(condition, what):
    if not condition:
        raise SystemExit(f"python client (tournament): {what}")


def main(base_url):
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    email = f"py-event-{uuid.uuid4().hex[:12]}@club.example"
    token = register.sync(client=anonymous, body=RegisterRequest(email=email, name="Director", password="correct horse battery"))
    check(token is not None and not isinstance(token, Problem), f"register: {token}")
    client = AuthenticatedClient(base_url=base_url, token=token.token, raise_on_unexpected_status=True)

    session = create_session.sync(client=client, body=CreateSession(name="Drive night"))
    members = []
    for i in range(1, ENTRANTS + 1):
        member = add_club_member.sync(id=session.club_id, client=client, body=AddMember(name=f"P{i}"))
        check(member is not None and not isinstance(member, Problem), f"add_club_member: {member!r}")
        members.append(member.id)
    number = {m: i + 1 for i, m in enumerate(members)}

    made = create_tournament.sync(
        id=session.id,
        client=client,
        body=NominationWhistCreateTournament(
            game=NominationWhistCreateTournamentGame.NOMINATION_WHIST,
            name="Whist drive",
            options=NominationWhistOptionsRequest(hand_sizes=[3]),
            format_=TournamentFormatProgressive(kind=TournamentFormatProgressiveKind.PROGRESSIVE, move=MoveRule.MOVE_RULE_WINNER),
            seats=SeatBounds(min_=4, max_=4),
            rounds=ROUNDS,
            deals_per_round=1,
            entrants=members,
            scoring=TournamentScoring(kind=ScoringKind.SCORING_KIND_POINTS),
        ),
    )
    check(made is not None and not isinstance(made, Problem), f"create_tournament: {made!r}")

    # Each table's deal: the lowest-numbered player nominates 2 and takes 2 (12 points), the next
    # nominates 0 and takes none (10), the third nominates 0 and takes 1 (1), the last nominates 1
    # and takes none (0). The lowest number wins every table it sits at.
    played = 0
    for n in range(1, ROUNDS + 1):
        started = start_round.sync(id=made.id, client=client)
        check(isinstance(started, StartedRound) and started.round_ == n, f"start_round {n}: {started!r}")
        check(len(started.tables) == ENTRANTS // 4 and started.byes == [], f"round {n}'s tables: {started!r}")
        for table in started.tables:
            seats = [number[s.member_id] for s in table.seats]
            check(len(seats) == 4, f"round {n}, table {table.number}: {seats}")
            ranks = [sum(q < p for q in seats) for p in seats]
            move = NominationWhistMoveResult(
                kind=NominationWhistMoveResultKind.RESULT,
                nominations=[[2, 0, 0, 1][r] for r in ranks],
                tricks=[[2, 0, 1, 0][r] for r in ranks],
            )
            answer = submit_move.sync(id=table.table_id, client=client, body=SubmitMove(move=move, expected_version=0))
            check(isinstance(answer, MoveResponse), f"round {n}, table {table.number}'s deal: {answer!r}")
            played += 1
        closed = close_round.sync(id=made.id, n=n, client=client)
        check(closed is not None and not isinstance(closed, Problem), f"close_round {n}: {closed!r}")

    results = get_tournament_results.sync(id=made.id, client=client)
    check(isinstance(results, TournamentResults), f"results: {results!r}")
    check(results.finished, "the tournament is finished after its last round")
    check(len(results.rounds) == ROUNDS, f"results' rounds: {len(results.rounds)}")
    standings = results.standings
    check(sorted(s.member_id for s in standings) == sorted(members), "the standings list every entrant once")
    places = [s.place for s in standings]
    check(places == sorted(places) and places[0] == 1, f"places in order from 1: {places}")
    # P1 sits at table 1 both rounds and wins it: 12 points a round, alone at the top.
    top = standings[0]
    check(number[top.member_id] == 1 and top.total.numer == 12 * ROUNDS and top.total.denom == 1,
          f"P1 first on {12 * ROUNDS}: {top!r}")
    check(places.count(1) == 1, f"one winner: {places}")

    csv = get_tournament_results_csv.sync(id=made.id, client=client)
    check(isinstance(csv, File), f"results.csv: {csv!r}")
    text = csv.payload.read().decode()
    rows = text.strip().splitlines()
    check(rows[0].startswith("place,member_id,name,total"), f"results.csv header: {rows[0]!r}")
    check(len(rows) == 1 + ENTRANTS, f"results.csv has a row per entrant: {text!r}")
    check({row.split(",")[1] for row in rows[1:]} == {str(m) for m in members}, "results.csv names every entrant")
    print(f"python client: a {ENTRANTS}-entrant progressive drive of {ROUNDS} rounds, {played} tables played, "
          f"P1 first on {top.total.numer}, {len(rows) - 1} CSV rows")


if __name__ == "__main__":
    main(sys.argv[1])
