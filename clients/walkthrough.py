"""Plays a short Nomination Whist game through the Python client generated from openapi/openapi.json.

Run by scripts/clients: python walkthrough.py BASE_URL (the generated package on PYTHONPATH).
"""

import sys
import uuid

from tablekeeper_client import AuthenticatedClient, Client
from tablekeeper_client.api.auth import register
from tablekeeper_client.api.sessions import create_session, get_session_standings
from tablekeeper_client.api.tables import (
    create_join_code,
    create_table,
    get_scores,
    get_scores_csv,
    get_table_ledger,
    submit_move,
)
from tablekeeper_client.types import File
from tablekeeper_client.models import (
    CreateSession,
    MovePlay,
    MovePlayKind,
    MoveResponse,
    NominationWhistCreateTable,
    NominationWhistCreateTableGame,
    NominationWhistMoveNominate,
    NominationWhistMoveNominateKind,
    NominationWhistOptionsRequest,
    NominationWhistScores,
    NominationWhistTableView,
    Problem,
    ProblemCode,
    RegisterRequest,
    SessionStandings,
    SubmitMove,
    TableLedger,
)


def check(condition, what):
    if not condition:
        raise SystemExit(f"python client: {what}")


def main(base_url):
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    email = f"py-{uuid.uuid4().hex[:12]}@club.example"
    token = register.sync(client=anonymous, body=RegisterRequest(email=email, name="Ada", password="correct horse battery"))
    check(token is not None and not isinstance(token, Problem), f"register: {token}")
    client = AuthenticatedClient(base_url=base_url, token=token.token, raise_on_unexpected_status=True)

    session = create_session.sync(client=client, body=CreateSession(name="Thursday club night"))
    table = create_table.sync(
        client=client,
        body=NominationWhistCreateTable(
            game=NominationWhistCreateTableGame.NOMINATION_WHIST,
            players=["Ann", "Bob", "Cat"],
            options=NominationWhistOptionsRequest(hand_sizes=[1, 2]),
            session_id=session.id,
        ),
    )
    check(isinstance(table, NominationWhistTableView), f"create_table: {table!r}")
    code = create_join_code.sync(id=table.id, client=client)
    check(len(code.code) == 8, f"join code: {code!r}")

    # Out of turn: seat 1 (the dealer's left) nominates first, not seat 2.
    refused = submit_move.sync_detailed(
        id=table.id,
        client=client,
        body=SubmitMove(move=NominationWhistMoveNominate(kind=NominationWhistMoveNominateKind.NOMINATE, seat=2, tricks=0)),
    )
    check(refused.status_code == 422, f"out of turn answered {refused.status_code}")
    check(isinstance(refused.parsed, Problem), f"out of turn parsed as {refused.parsed!r}")
    check(refused.parsed.code == ProblemCode.NOT_YOUR_TURN, f"out of turn code {refused.parsed.code}")

    version = table.version

    def move(m):
        nonlocal version
        answer = submit_move.sync(id=table.id, client=client, body=SubmitMove(move=m, expected_version=version))
        check(isinstance(answer, MoveResponse), f"move {m.to_dict()}: {answer!r}")
        version = answer.table.version
        return answer

    def nominate(seat, tricks):
        return move(NominationWhistMoveNominate(kind=NominationWhistMoveNominateKind.NOMINATE, seat=seat, tricks=tricks))

    def play(seat, card):
        # A move is taken by its kind: a `play` is one type at every game's table.
        return move(MovePlay(kind=MovePlayKind.PLAY, seat=seat, card=card))

    # Deal 1: one card each, seat 0 deals, seat 1 leads.
    nominate(1, 0), nominate(2, 1), nominate(0, 0)
    play(1, "2H"), play(2, "AH"), play(0, "3H")
    # Deal 2: two cards each, seat 1 deals, seat 2 leads and wins both tricks.
    nominate(2, 2), nominate(0, 0), nominate(1, 1)
    play(2, "AS"), play(0, "2S"), play(1, "3S")
    last = play(2, "KS"), play(0, "4S"), play(1, "5S")
    check(last[-1].table.finished, "the game is finished after two deals")

    scores = get_scores.sync(id=table.id, client=client)
    check(isinstance(scores, NominationWhistScores), f"scores: {scores!r}")
    ledger = get_table_ledger.sync(id=table.id, client=client)
    check(isinstance(ledger, TableLedger), f"ledger: {ledger!r}")
    standings = get_session_standings.sync(id=session.id, client=client)
    check(isinstance(standings, SessionStandings) and len(standings.players) == 3, f"standings: {standings!r}")
    # The CSV download is an operation of its own, a file: the JSON answers above are typed as JSON only.
    csv = get_scores_csv.sync(id=table.id, client=client)
    check(isinstance(csv, File), f"scores.csv: {csv!r}")
    text = csv.payload.read().decode()
    rows = text.rstrip("\r\n").split("\r\n")
    check(rows[0].startswith("deal") and len(rows) == 3, f"scores.csv: {text!r}")
    print(f"python client: {len(scores.sheet.deals)} deals, totals {scores.sheet.totals}, {len(rows) - 1} CSV rows, "
          f"{len(ledger.bookings)} bookings, {len(standings.players)} players in the standings, out-of-turn move refused with {refused.parsed.code.value}")


if __name__ == "__main__":
    main(sys.argv[1])
