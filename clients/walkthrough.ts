// Plays a short Nomination Whist game through openapi-fetch typed by the types openapi-typescript
// generates from openapi/openapi.json. Run by scripts/clients: node walkthrough.js BASE_URL.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

// A move is taken by its kind: a `play` is one type at every game's table.
type Move = components["schemas"]["AnyMove"];
type Problem = components["schemas"]["Problem"];

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`typescript client: ${what}`);
}

async function main(baseUrl: string): Promise<void> {
  const api = createClient<paths>({ baseUrl });
  const email = `ts-${crypto.randomUUID().slice(0, 12)}@club.example`;
  const registered = await api.POST("/api/v1/auth/register", {
    body: { email, name: "Ada", password: "correct horse battery" },
  });
  check(registered.data, `register: ${JSON.stringify(registered.error)}`);
  const headers = { Authorization: `Bearer ${registered.data.token}` };

  const session = await api.POST("/api/v1/sessions", { headers, body: { name: "Thursday club night" } });
  check(session.data, "create_session");
  // Options left out take the server's defaults: only hand_sizes is given.
  const opened = await api.POST("/api/v1/tables", {
    headers,
    body: {
      game: "nomination-whist",
      players: ["Ann", "Bob", "Cat"],
      options: { hand_sizes: [1, 2] },
      session_id: session.data.id,
    },
  });
  check(opened.data, `create_table: ${JSON.stringify(opened.error)}`);
  const table = opened.data;
  check(table.game === "nomination-whist", "the table view is discriminated by game");
  const id = table.id;
  const code = await api.POST("/api/v1/tables/{id}/join-codes", { headers, params: { path: { id } } });
  check(code.data?.code.length === 8, "join code");

  const refused = await api.POST("/api/v1/tables/{id}/moves", {
    headers,
    params: { path: { id } },
    body: { move: { kind: "nominate", seat: 2, tricks: 0 } },
  });
  const problem: Problem | undefined = refused.error;
  check(refused.response.status === 422 && problem?.code === "not_your_turn", `out of turn: ${JSON.stringify(problem)}`);

  let version = table.version;
  let finished = false;
  const move = async (m: Move) => {
    const answer = await api.POST("/api/v1/tables/{id}/moves", {
      headers,
      params: { path: { id } },
      body: { move: m, expected_version: version },
    });
    check(answer.data, `move ${JSON.stringify(m)}: ${JSON.stringify(answer.error)}`);
    version = answer.data.table.version;
    finished = answer.data.table.finished;
  };
  const nominate = (seat: number, tricks: number) => move({ kind: "nominate", seat, tricks });
  const play = (seat: number, card: string) => move({ kind: "play", seat, card });

  // Deal 1: one card each, seat 0 deals, seat 1 leads.
  await nominate(1, 0); await nominate(2, 1); await nominate(0, 0);
  await play(1, "2H"); await play(2, "AH"); await play(0, "3H");
  // Deal 2: two cards each, seat 1 deals, seat 2 leads and wins both tricks.
  await nominate(2, 2); await nominate(0, 0); await nominate(1, 1);
  await play(2, "AS"); await play(0, "2S"); await play(1, "3S");
  await play(2, "KS"); await play(0, "4S"); await play(1, "5S");
  check(finished, "the game is finished after two deals");

  // JSON answers are typed as JSON only; the CSV download is an operation of its own.
  const scores = (await api.GET("/api/v1/tables/{id}/scores", { headers, params: { path: { id } } })).data;
  if (scores === undefined) throw new Error("scores: no answer");
  check(scores.game === "nomination-whist", "scores");
  const sheet = scores.sheet;
  const ledger = (await api.GET("/api/v1/tables/{id}/ledger", { headers, params: { path: { id } } })).data;
  if (ledger === undefined) throw new Error("ledger: no answer");
  const standings = (
    await api.GET("/api/v1/sessions/{id}/standings", { headers, params: { path: { id: session.data.id } } })
  ).data;
  if (standings === undefined) throw new Error("standings: no answer");
  check(standings.players.length === 3, `standings of three players: ${JSON.stringify(standings)}`);
  const csv = await api.GET("/api/v1/tables/{id}/scores.csv", { headers, params: { path: { id } }, parseAs: "text" });
  if (csv.data === undefined) throw new Error("scores.csv: no answer");
  const rows = csv.data.trimEnd().split("\r\n");
  check(rows.length === 3 && rows[0].startsWith("deal"), `scores.csv: a header and a row per deal: ${csv.data}`);
  console.log(
    `typescript client: ${sheet.deals.length} deals, totals ${JSON.stringify(sheet.totals)}, ` +
      `${ledger.bookings.length} bookings, ${standings.players.length} players in the standings, ${rows.length - 1} CSV rows, out-of-turn move refused with ${problem.code}`,
  );
}

await main(process.argv[2] ?? "http://127.0.0.1:8080");
