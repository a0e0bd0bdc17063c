// @ts-check
// The shapes the page passes around, as JSDoc types for `tsc --checkJs` (scripts/check-page).
// Types only: nothing imports this module at run time (`import('./types.js')` in JSDoc is
// erased), so the browser never loads it and the server does not serve it.

/** A seat at the table, 0-based. @typedef {number} Seat */

/** A card as the API writes it: "QS", "10H", "7D"; a Squares card "3BS". @typedef {string} Card */

/** A card laid by a seat. @typedef {{ seat: Seat, card: Card }} Play */

/**
 * The trick being played.
 * @typedef {object} CurrentTrick
 * @property {number} number
 * @property {Seat} [leader]
 * @property {Play[]} plays
 */

/**
 * One of the moves the server accepts next (`legal_moves`): tagged by `kind`, with the choices
 * open (`cards`, `tricks`, `bids`, `seats`…), or, from an older server, a bare kind.
 * @typedef {{ kind: string, seat?: Seat | null, seats?: Seat[], cards?: Card[], card?: Card,
 *   [choice: string]: any }} LegalMove
 */

/**
 * A game's view of the table (`TableView.state`): the fields every game's page may read, which
 * several games' views share. What only one game's view has (Tridge's `funds`, Pope Joan's
 * `board`, …) is read by that game's page module alone (`GamePage`); the index signature is
 * there for them.
 * @typedef {GameViewCommon & { [field: string]: any }} GameView
 * @typedef {object} GameViewCommon
 * @property {string} [phase]
 * @property {number} [deal] 1-based; Tricky Dick numbers hands instead (`GamePage.numbering`)
 * @property {number} [deals_in_game]
 * @property {Seat | null} [dealer]
 * @property {Seat | null} [to_act]
 * @property {(LegalMove | string)[]} [legal_moves]
 * @property {number | null} [hand_size]
 * @property {string | null} [trumps]
 * @property {Card | null} [turn_up]
 * @property {CurrentTrick | null} [current_trick]
 * @property {Card[]} [played]
 * @property {Card | null} [next_card]
 * @property {number[]} [tricks_won]
 * @property {number[]} [cards_left]
 * @property {number[]} [totals]
 * @property {any[]} [chips]
 * @property {{ seat: Seat, suit?: string }[]} [revokes]
 * @property {Seat[]} [winners]
 */

/**
 * A table as `GET /tables/{id}` answers it.
 * @typedef {object} TableView
 * @property {string} id
 * @property {string} game the game's id ("nomination-whist")
 * @property {string | null} [session_id]
 * @property {string[]} players names in seat order
 * @property {Record<string, any>} [options] the options in force
 * @property {number} version bumped by every entry of the move log
 * @property {boolean} finished
 * @property {string | null} [chain_head]
 * @property {GameView} state
 */

/**
 * A move as posted (`{"kind": "play", "seat": 1, "card": "QS"}`).
 * @typedef {{ kind: string, seat?: Seat | null, card?: Card, [field: string]: any }} Move
 */

/** What the engine said a move did (`{"event": "trick_won", "winner": 2}`). @typedef {{ event: string, [field: string]: any }} GameEvent */

/**
 * An entry of the move log: a move, or a void (an undo) of an earlier entry.
 * @typedef {object} LogEntry
 * @property {number} [seq]
 * @property {'move' | 'void' | string} entry
 * @property {Move} [move]
 * @property {GameEvent[]} [events]
 * @property {number} [voids] the entry a void undoes
 * @property {number | null} [voided_by] the void that undid this entry
 * @property {string} [recorded_by] "scorer:<id>" or "organiser:<id>"
 * @property {number | null} [part_of] the correction this move was re-entered in
 * @property {number | null} [superseded_by] the correction that replaced this move
 */

/**
 * An entry waiting in the phone's outbox (queue.js), as kept in localStorage.
 * @typedef {object} QueuedEntry
 * @property {string} key its Idempotency-Key, made on the phone
 * @property {'moves' | 'undo' | string} path posted to /tables/{id}/{path}
 * @property {{ move?: Move, deal?: number, expected_version: number, [field: string]: any }} body
 * @property {string} label what the scorer entered, in words
 * @property {string} at when it was entered (ISO 8601)
 */

/**
 * The refused first entry of the outbox; after a version conflict, `since` is the table's version
 * it was made against (what was recorded after it is what beat it).
 * @typedef {{ key: string, message: string, code?: string, since?: number }} Blocked
 */

/** A seat in words: the player's name. @typedef {(seat: Seat | null | undefined) => string} Who */

/**
 * A sentence of strings and card faces (a Squares card is shown as its coloured shape).
 * @typedef {string | Node | null | undefined | false | SentenceParts} Sentence
 * @typedef {Sentence[]} SentenceParts
 */

/**
 * How a game numbers its deals: Tricky Dick's views, events and sheets say `hand`.
 * @typedef {object} Numbering
 * @property {string} deal the field holding the number ("deal", "hand")
 * @property {string} inGame the field holding how many there are ("deals_in_game")
 * @property {string} sheet the score sheet's list of lines ("deals", "hands")
 * @property {string} word "Deal", "Hand"
 */

/**
 * What the entry panel and a game's controls work with (panels.js).
 * @typedef {object} PanelContext
 * @property {string} game the game's id
 * @property {GameView} view the view the panel is drawn for
 * @property {TableView} table
 * @property {LogEntry[]} log
 * @property {string[]} players
 * @property {string | null} [mode] 'cards' or 'result', as the scorer chose
 * @property {(mode: string | null) => void} setMode draws the panel again
 * @property {(move: Move, label: string, extra?: Record<string, any>) => void} send
 * @property {string | null} [waiting] offline with an entry queued: what the card-by-card side says instead of its panel
 * @property {Card[]} [deck] the game's deck (set by panels.js)
 * @property {GamePage} [page] the game's page module (set by panels.js)
 */

/**
 * A summary's part that is a game's own: a word per seat, lines before the seats'.
 * @typedef {{ seats?: (string | null)[], lines?: string[] }} GameSummary
 */

/**
 * A game's page module, `games/<game id>.js`. Everything but `deck` and the panels is optional:
 * the shared modules call a hook when the game has it and otherwise draw nothing of their own.
 * @typedef {object} GamePage
 * @property {Card[]} [deck] the cards of its deck, in picker order
 * @property {string[]} [kinds] the move kinds its card-by-card panel has controls for
 * @property {(ctx: PanelContext, kinds: Set<string>) => any} [panel]
 * @property {(ctx: PanelContext) => any} [result]
 * @property {Numbering} [numbering] when its deals are not called deals
 * @property {(view: GameView, name: Who) => string[]} [facts] header facts of its own
 * @property {(view: GameView, seat: Seat, short?: boolean) => string[]} [seatBits] what a seat said or won
 * @property {(view: GameView, name: Who) => Node[]} [centre] the centre's part of its own
 * @property {(view: GameView) => Card | null} [live] the card a live run waits for
 * @property {(move: Move, who: Who) => Sentence | null} [describe] its own moves in words
 * @property {(event: GameEvent, entry: LogEntry, before: GameView, who: Who) => GameSummary} [summary]
 * @property {(line: Record<string, any>, seat: Seat) => { before?: Node[], after?: Node[] }} [sheetCell]
 * @property {boolean} [pools] a stops game: chips can be left in its pools when a round closes
 *   (a tournament's `leftover` rule says where they go)
 */

export {};
