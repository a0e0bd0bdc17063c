// Plays a short Nomination Whist game through the Go client openapi-generator (`go`, default
// settings) generates from openapi/openapi.json: register, open a table, record the game, read
// its scores, ledger, the session's standings and the scores as CSV.
//
// Run by scripts/clients, which builds it beside the generated package: `walkthrough BASE_URL`.
// Every body is one of the generated types; nothing is built as JSON here.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	// The generator's default module path (set gitUserId and gitRepoId for your own).
	tablekeeper "github.com/GIT_USER_ID/GIT_REPO_ID"
)

func check(condition bool, format string, args ...interface{}) {
	if !condition {
		fail(format, args...)
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "go client: "+format+"\n", args...)
	os.Exit(1)
}

// A move is taken by its kind: a `play` is one type at every game's table.
func nominate(seat, tricks int32) tablekeeper.AnyMove {
	return tablekeeper.NominationWhistMoveNominateAsAnyMove(
		tablekeeper.NewNominationWhistMoveNominate("nominate", seat, tricks))
}

func play(seat int32, card string) tablekeeper.AnyMove {
	return tablekeeper.MovePlayAsAnyMove(
		tablekeeper.NewMovePlay(tablekeeper.StringAsMovePlayCard(&card), "play", seat))
}

func main() {
	baseURL := "http://127.0.0.1:8080"
	if len(os.Args) > 1 {
		baseURL = os.Args[1]
	}
	config := tablekeeper.NewConfiguration()
	config.Servers = tablekeeper.ServerConfigurations{{URL: baseURL}}
	client := tablekeeper.NewAPIClient(config)
	ctx := context.Background()

	email := fmt.Sprintf("go-%d-%d@club.example", os.Getpid(), time.Now().UnixNano())
	token, _, err := client.AuthAPI.Register(ctx).
		RegisterRequest(*tablekeeper.NewRegisterRequest(email, "Ada", "correct horse battery")).Execute()
	if err != nil {
		fail("register: %v", err)
	}
	ctx = context.WithValue(ctx, tablekeeper.ContextAccessToken, token.Token)

	session, _, err := client.SessionsAPI.CreateSession(ctx).
		CreateSession(*tablekeeper.NewCreateSession("Thursday club night")).Execute()
	if err != nil {
		fail("create_session: %v", err)
	}
	// Options left out take the server's defaults: only hand_sizes is given.
	options := tablekeeper.NewNominationWhistOptionsRequest()
	options.SetHandSizes([]int32{1, 2})
	body := tablekeeper.NewNominationWhistCreateTable("nomination-whist", []string{"Ann", "Bob", "Cat"})
	body.SetOptions(*options)
	body.SetSessionId(session.Id)
	opened, _, err := client.TablesAPI.CreateTable(ctx).
		CreateTable(tablekeeper.NominationWhistCreateTableAsCreateTable(body)).Execute()
	if err != nil {
		fail("create_table: %v", err)
	}
	table := opened.NominationWhistTableView
	check(table != nil, "create_table answered another game's view: %+v", opened.GetActualInstance())
	code, _, err := client.TablesAPI.CreateJoinCode(ctx, table.Id).Execute()
	if err != nil {
		fail("create_join_code: %v", err)
	}
	check(len(code.Code) == 8, "join code %q", code.Code)

	// Out of turn: seat 1 (the dealer's left) nominates first, not seat 2.
	_, answer, err := client.TablesAPI.SubmitMove(ctx, table.Id).
		SubmitMove(*tablekeeper.NewSubmitMove(nominate(2, 0))).Execute()
	var refusal *tablekeeper.GenericOpenAPIError
	check(errors.As(err, &refusal), "out of turn answered %v", err)
	check(answer.StatusCode == 422, "out of turn answered %d", answer.StatusCode)
	problem, ok := refusal.Model().(tablekeeper.Problem)
	check(ok, "out of turn read as %#v", refusal.Model())
	check(problem.Code == "not_your_turn", "out of turn code %q", problem.Code)

	version := table.Version
	finished := false
	record := func(move tablekeeper.AnyMove) {
		submit := tablekeeper.NewSubmitMove(move)
		submit.SetExpectedVersion(version)
		answer, _, err := client.TablesAPI.SubmitMove(ctx, table.Id).SubmitMove(*submit).Execute()
		if err != nil {
			fail("move %+v: %v", move.GetActualInstance(), err)
		}
		view := answer.Table.NominationWhistTableView
		check(view != nil, "a move answered another game's view: %+v", answer.Table.GetActualInstance())
		version = view.Version
		finished = view.Finished
	}
	// Deal 1: one card each, seat 0 deals, seat 1 leads.
	for _, move := range []tablekeeper.AnyMove{
		nominate(1, 0), nominate(2, 1), nominate(0, 0),
		play(1, "2H"), play(2, "AH"), play(0, "3H"),
		// Deal 2: two cards each, seat 1 deals, seat 2 leads and wins both tricks.
		nominate(2, 2), nominate(0, 0), nominate(1, 1),
		play(2, "AS"), play(0, "2S"), play(1, "3S"),
		play(2, "KS"), play(0, "4S"), play(1, "5S"),
	} {
		record(move)
	}
	check(finished, "the game is finished after two deals")

	scores, _, err := client.TablesAPI.GetScores(ctx, table.Id).Execute()
	if err != nil {
		fail("get_scores: %v", err)
	}
	check(scores.NominationWhistScores != nil, "scores of another game: %+v", scores.GetActualInstance())
	sheet := scores.NominationWhistScores.Sheet
	check(sheet.Finished && len(sheet.Deals) == 2, "score sheet %+v", sheet)
	ledger, _, err := client.TablesAPI.GetTableLedger(ctx, table.Id).Execute()
	if err != nil {
		fail("get_table_ledger: %v", err)
	}
	standings, _, err := client.SessionsAPI.GetSessionStandings(ctx, session.Id).Execute()
	if err != nil {
		fail("get_session_standings: %v", err)
	}
	check(len(standings.Players) == 3, "standings of three players: %+v", standings)
	// The CSV download is an operation of its own: the JSON answers above are typed as JSON only.
	// A CSV answer is a file (`format: binary`): the generated call hands back a temporary file.
	file, _, err := client.TablesAPI.GetScoresCsv(ctx, table.Id).Execute()
	if err != nil {
		fail("get_scores_csv: %v", err)
	}
	defer os.Remove(file.Name())
	csv, err := io.ReadAll(file)
	if err != nil {
		fail("scores.csv: %v", err)
	}
	rows := strings.Split(strings.TrimRight(string(csv), "\r\n"), "\r\n")
	check(len(rows) == 3 && strings.HasPrefix(rows[0], "deal"), "scores.csv: a header and a row per deal: %q", csv)
	fmt.Printf("go client: %d deals, totals %v, %d bookings, %d players in the standings, %d CSV rows, "+
		"out-of-turn move refused with %s\n",
		len(sheet.Deals), sheet.Totals, len(ledger.Bookings), len(standings.Players), len(rows)-1, problem.Code)
}
