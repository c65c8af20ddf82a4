// ShengjiZero's web table: renders the server's state, sends the player's choices.
// The server holds the game and checks every message; this page only draws and asks.
"use strict";

const SUITS = { S: "♠", H: "♥", C: "♣", D: "♦" };
const RED_SUITS = new Set(["H", "D"]);
const $ = (id) => document.getElementById(id);

let socket = null;
let gameId = null;
let seatToken = null;      // this browser's seat in the game (from its join link); null: a spectator
let reconnectTimer = null;
let state = null;          // the last state drawn
let queue = [];            // states waiting for an animation to finish
let animating = false;
let shownPlays = new Set(); // plays already animated into the trick
let toastTimer = null;
let replay = null;         // the hand being replayed ({data, trick}); null: none

// ------------------------------------------------------------------ helpers
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

function pace() {
  // Animation times follow the server's AI delay (fast tables animate fast).
  const delay = state && typeof state.ai_delay === "number" ? state.ai_delay : 0.7;
  return Math.max(0.08, Math.min(1, delay / 0.7));
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.classList.remove("hidden");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.classList.add("hidden"), 3500);
}

function suitHtml(letter) {
  const span = el("span", RED_SUITS.has(letter) ? "suit-red" : "", SUITS[letter]);
  return span.outerHTML;
}

// A card drawn in CSS: {c: "SA", t: is_trump}.
function cardEl(card, small) {
  const name = card.c;
  const size = small === "mini" ? " mini" : small ? " small" : "";
  const node = el("div", "card" + size);
  node.dataset.card = name;
  if (card.t) node.classList.add("trump");
  if (card.k) node.classList.add("from-kitty");  // taken up from the kitty, before the burial
  if (name === "BJ" || name === "LJ") {
    node.classList.add("joker");
    if (name === "BJ") node.classList.add("red");
    // Told apart by word, colour and crown at every size: BIG (red, ♛) and LITTLE (black, ♕); B / L when mini.
    const corner = el("span", "corner", name === "BJ" ? "BIG" : "LITTLE");
    corner.dataset.short = name === "BJ" ? "B" : "L";
    node.classList.add(name === "BJ" ? "big" : "little");
    node.append(corner, el("span", "pip", name === "BJ" ? "♛" : "♕"));
    node.title = (name === "BJ" ? "big joker (BJ)" : "little joker (LJ)") + (card.k ? " · from the kitty" : "");
    return node;
  }
  const suit = name[0];
  const rank = name.slice(1) === "T" ? "10" : name.slice(1);
  if (RED_SUITS.has(suit)) node.classList.add("red");
  const corner = el("span", "corner", rank);
  corner.append(el("span", "s", SUITS[suit]));
  node.append(corner, el("span", "pip", SUITS[suit]));
  node.title = name + (card.k ? " · from the kitty" : "");
  return node;
}

function cardsRow(cards, small, className) {
  const row = el("div", className || "fan");
  for (const card of cards) row.append(cardEl(card, small));
  return row;
}

function seatByNumber(number) { return state.seats[number]; }
function shortName(seat) { return seat.label === "You" ? "You" : seat.compass; }

// ------------------------------------------------------------------ drawing
function drawSeats() {
  for (const seat of state.seats) {
    const box = document.querySelector(`.seat.${seat.position}`);
    box.replaceChildren();
    const plate = el("div", "plate" + (state.to_act === seat.seat ? " to-act" : ""));
    const who = el("div", "who", seat.label);
    if (seat.dealer) who.append(el("span", "badge dealer", "dealer"));
    if (seat.away) who.append(el("span", "badge away", seat.stand_in ? "away · AI plays" : "away · waiting"));
    plate.append(who, el("div", "meta", `${seat.cards} cards · team ${seat.team === 0 ? "A" : "B"}`));
    const faceUp = state.hands[String(seat.seat)];
    if (seat.position !== "south") {
      if (faceUp) {  // watch mode; the long hands of three or four decks in mini cards
        const long = faceUp.length > 30;
        box.append(plate, cardsRow(faceUp, long ? "mini" : true, long ? "fan long" : "fan"));
      } else {
        const backs = el("div", "backs");
        for (let i = 0; i < Math.min(seat.cards, 10); i += 1) backs.append(el("div", "card back"));
        box.append(seat.position === "north" ? plate : plate, backs);
      }
    } else {
      box.append(plate);
    }
  }
}

function positionOf(seatNumber) { return seatByNumber(seatNumber).position; }

function drawTrick(plays, winner) {
  const trick = $("trick");
  trick.classList.remove("collect", "to-north", "to-south", "to-east", "to-west");
  for (const slot of trick.querySelectorAll(".slot")) {
    slot.replaceChildren();
    slot.className = `slot ${slot.dataset.position}`;
  }
  trick.classList.toggle("wide", plays.some((play) => play.cards.length > 5));
  for (const play of plays) {
    const position = positionOf(play.seat);
    const slot = trick.querySelector(`.slot.${position}`);
    const key = `${state.hand_number}:${state.tricks_played}:${play.seat}:${play.cards.map((c) => c.c).join(",")}`;
    for (const card of play.cards) slot.append(cardEl(card, false));
    slot.classList.toggle("many", play.cards.length > 5);  // a long throw, a tractor of triples or quads
    slot.classList.toggle("longest", play.cards.length > 9);
    if (!shownPlays.has(key) && winner === undefined) {
      shownPlays.add(key);
      slot.classList.add("fresh", `from-${position}`);
    }
    if (winner === play.seat) slot.classList.add("winner");
  }
}

function drawScore() {
  const me = state.you === null ? 0 : state.you;
  for (const team of [0, 1]) {
    const row = $(`team-${team}`);
    const members = state.seats.filter((s) => s.team === team).map(shortName).join(" & ");
    row.querySelector(".team-name").textContent = members;
    row.querySelector(".team-level").textContent = state.team_levels[team] === "T" ? "10" : state.team_levels[team];
    row.classList.toggle("us", team === me % 2);
  }
  $("defender-points").textContent = state.defender_points;
  const allPoints = state.layout.points || 200;  // 100 a deck (RULES.md 11)
  $("points-bar").style.width = `${Math.max(0, Math.min(100, 100 * state.defender_points / allPoints))}%`;
  const trump = state.trump_suit ? `${suitHtml(state.trump_suit)} ${state.trump}` : state.trump;
  $("fact-trump").innerHTML = trump;
  $("fact-level").textContent = state.level === "T" ? "10" : state.level;
  const guafeng = state.guafeng;
  $("fact-dealer-label").textContent = guafeng ? "Stage team" : "Dealer";
  $("fact-dealer").textContent = guafeng ? guafeng.stage
    : state.dealer === null ? "being bid" : seatByNumber(state.dealer).label;
  if (guafeng) {
    const taker = guafeng.kitty_taker === null ? "" : ` · kitty: ${seatByNumber(guafeng.kitty_taker).label}`;
    $("fact-fix").textContent = (guafeng.standing || "none yet") + taker;
  }
  const trick = state.trick_total ? `${state.trick_number} / ${state.trick_total}` : `${state.trick_number}`;
  $("fact-trick").textContent = state.phase === "play" ? trick : state.phase;
  $("fact-rules").textContent = state.rules_text;
  const last = $("last-trick");
  last.replaceChildren();
  if (state.last_trick) {
    for (const play of state.last_trick.plays) {
      const row = el("div", "row" + (play.seat === state.last_trick.winner ? " won" : ""));
      row.append(el("span", "name", shortName(seatByNumber(play.seat))), cardsRow(play.cards, "mini"));
      last.append(row);
    }
    last.append(el("div", "won-by", `won by ${seatByNumber(state.last_trick.winner).label}, +${state.last_trick.points} points`));
  } else {
    last.append(el("div", "won-by", "none yet"));
  }
  $("my-kitty-box").classList.toggle("hidden", !state.my_kitty);
  $("my-kitty").replaceChildren(...(state.my_kitty || []).map((c) => cardEl(c, "mini")));
  const history = $("trick-history");
  history.replaceChildren(...(state.tricks || []).map((trick) => {
    const item = el("li", "trick-row");
    item.value = trick.number;
    for (const play of trick.plays) {
      const row = el("div", "row" + (play.seat === trick.winner ? " won" : ""));
      row.append(el("span", "name", shortName(seatByNumber(play.seat)) + (play.seat === trick.leader ? " led" : "")),
        cardsRow(play.cards, "mini"));
      item.append(row);
    }
    item.append(el("div", "won-by", `won by ${seatByNumber(trick.winner).label}, +${trick.points}`));
    return item;
  }));
  drawScoreHistory();
  const list = $("messages");
  list.replaceChildren(...state.messages.map((m) => el("li", "", m)));
  list.scrollTop = list.scrollHeight;
  $("status-line").textContent = `Hand ${state.hand_number} · ${state.decks_text} · level ${state.level === "T" ? "10" : state.level} · trump: ${state.trump}`
    + (state.watch ? " · watching" : "");
}

function levelText(level) { return level === "T" ? "10" : level; }

// The match's hands so far, one row each, with a replay of each hand.
function drawScoreHistory() {
  const rows = state.scores || [];
  $("scores-box").classList.toggle("hidden", !rows.length);
  $("score-history").tBodies[0].replaceChildren(...rows.map((row) => {
    const line = el("tr");
    const levels = row.team_levels_before.map(levelText).join("/") + " → " + row.team_levels_after.map(levelText).join("/");
    const won = row.levels ? `${row.winner} +${row.levels}` : `${row.winner} take the deal`;
    for (const text of [row.hand, shortName(seatByNumber(row.dealer)), row.trump, row.defender_points]) {
      line.append(el("td", "", String(text)));
    }
    const cell = el("td", "levels", levels);
    cell.title = won;
    line.append(cell);
    const button = el("button", "ghost replay", "Replay");
    button.type = "button";
    button.dataset.hand = row.hand;
    button.addEventListener("click", () => openReplay(row.hand));
    const last = el("td");
    last.append(button);
    line.append(last);
    return line;
  }));
}

// ------------------------------------------------------------------ the replay of a finished hand
async function openReplay(hand) {
  const response = await fetch(`/api/games/${gameId}/replay?hand=${hand}`);
  const data = await response.json();
  if (!response.ok) { toast(typeof data.detail === "string" ? data.detail : "no replay"); return; }
  replay = { data, trick: 0 };
  $("replay").classList.remove("hidden");
  drawReplay();
}

function drawReplay() {
  const { data } = replay;
  const trick = data.tricks[replay.trick];
  const label = (seat) => seatByNumber(seat).label;
  $("replay-title").textContent = `Hand ${data.hand} · trick ${replay.trick + 1} of ${data.tricks.length}`;
  $("replay-facts").textContent = `Dealer ${label(data.dealer)} · trump: ${data.trump} · level ${levelText(data.level)}`;
  for (const box of document.querySelectorAll(".replay-seat")) box.replaceChildren();
  for (const seat of state.seats) {
    const box = document.querySelector(`.replay-seat.${seat.position}`);
    const play = trick.plays.find((p) => p.seat === seat.seat);
    const who = el("div", "who", seat.label);
    if (seat.seat === trick.leader) who.append(el("span", "badge led", "led"));
    if (seat.seat === trick.winner) who.append(el("span", "badge won", "won"));
    box.classList.toggle("winner", seat.seat === trick.winner);
    box.dataset.seat = seat.seat;
    box.append(who, cardsRow(play.cards, true, "fan played"), cardsRow(trick.held[String(seat.seat)], "mini", "fan held"));
  }
  const last = replay.trick === data.tricks.length - 1;
  $("replay-note").textContent = `${label(trick.winner)} won the trick (+${trick.points} points); `
    + `the defenders have ${trick.defender_points}.`
    + (last ? ` Kitty (${label(data.buried_by)} buried): ${data.kitty.map((c) => c.c).join(" ")}; `
      + `the defenders took ${data.result.defender_points} in all.` : "");
  $("replay-prev").disabled = replay.trick === 0;
  $("replay-next").disabled = last;
  document.body.dataset.replayTrick = replay.trick + 1;
}

function stepReplay(by) {
  if (!replay) return;
  replay.trick = Math.max(0, Math.min(replay.data.tricks.length - 1, replay.trick + by));
  drawReplay();
}

function closeReplay() {
  replay = null;
  $("replay").classList.add("hidden");
  delete document.body.dataset.replayTrick;
}

function selectionCounts() {
  const counts = new Map();
  for (const name of (state.selection ? state.selection.cards : [])) counts.set(name, (counts.get(name) || 0) + 1);
  return counts;
}

function drawHand() {
  const hand = $("hand");
  hand.replaceChildren();
  const cards = state.watch ? (state.hands[String(state.seats.find((s) => s.position === "south").seat)] || []) : state.hand;
  const selection = state.selection;
  const left = selectionCounts();
  const addable = new Set(selection ? selection.addable : []);
  // Closer together for the dealer's hand before the burial, and for the long hands of three or four decks.
  hand.classList.toggle("crowded", cards.length > Math.min(state.layout.hand_size, 30));
  // One box per suit group (trump first, as the server orders them): a row of the hand breaks between
  // groups where it can, inside a group only when that group is longer than a row.
  let group = null;
  let box = null;
  cards.forEach((card) => {
    const node = cardEl(card, false);
    const cardGroup = card.t ? "trump" : card.c[0];
    if (cardGroup !== group) {
      box = el("div", "suit-group");
      box.dataset.group = cardGroup;
      hand.append(box);
    }
    group = cardGroup;
    if (selection) {
      if (left.get(card.c)) {
        left.set(card.c, left.get(card.c) - 1);
        node.classList.add("selected");
        node.addEventListener("click", () => toggle(card.c, false));
      } else if (addable.has(card.c)) {
        node.classList.add("playable");
        node.addEventListener("click", () => toggle(card.c, true));
      } else {
        node.classList.add("disabled");
      }
    }
    box.append(node);
  });
  const submit = $("submit");
  submit.disabled = !(selection && selection.complete);
  const labels = { bury: "Bury", tribute: "Give", return: "Return", give_back: "Give back" };
  submit.textContent = (selection && labels[selection.action]) || "Play";
  $("clear").disabled = !(selection && selection.cards.length);
  $("hint").disabled = !state.your_turn;
}

// Once a decision is sent the turn is over here at once: no Play to press twice, no card left raised
// while the trick animates (the server's next state redraws the hand).
function leaveTurn() {
  $("submit").disabled = true;
  $("clear").disabled = true;
  $("hint").disabled = true;
  for (const node of document.querySelectorAll("#hand .card")) {
    node.classList.remove("playable");
    if (node.classList.contains("selected")) node.classList.add("sent");
  }
  $("prompt").textContent = "";
  document.body.dataset.yourTurn = "no";
}

function toggle(name, add) {
  const cards = state.selection ? [...state.selection.cards] : [];
  if (add) {
    cards.push(name);
  } else {
    cards.splice(cards.lastIndexOf(name), 1);
  }
  send({ type: "select", cards });
}

function drawPrompt() {
  let text;
  const toAct = state.to_act === null ? null : seatByNumber(state.to_act);
  const guafeng = state.guafeng;
  const selected = state.selection ? state.selection.cards.length : 0;
  if (state.result) {
    text = state.match.over && state.episode === "match" ? "The match is over." : "Hand over: see the score.";
  } else if (guafeng && state.your_turn) {
    text = guafengPrompt(guafeng, selected);
  } else if (state.your_turn && state.phase === "kitty") {
    text = `You are the dealer: bury ${state.layout.kitty_size} cards (${state.selection ? state.selection.cards.length : 0} selected).`;
  } else if (state.your_turn && state.phase === "tribute") {
    text = "Tribute: give the dealer your highest card (the cards you may give are playable).";
  } else if (state.your_turn && state.phase === "tribute_return") {
    text = `Return one card (not a tribute card) to ${seatByNumber(state.return_to).label}.`;
  } else if (state.your_turn && state.phase === "rebid") {
    text = "炒地皮: bid a stronger trump and take up the kitty, or pass.";
  } else if (state.your_turn && state.phase === "play") {
    const need = state.selection && state.selection.needed;
    text = need ? `Your turn: follow with ${need} card${need > 1 ? "s" : ""}.` : "Your lead: pick cards of one suit, then Play.";
  } else if (state.your_turn) {
    text = "Declare trump, or pass.";
  } else if (toAct) {
    text = state.watch && !state.auto ? `${toAct.label} to act: press Step or Auto play.` : `Waiting for ${toAct.label}…`;
  } else {
    text = "";
  }
  $("prompt").textContent = text;
}

// 刮风's requests: the fix, 回牌, the burial before the trump is known, one card first, then combinations.
function guafengPrompt(guafeng, selected) {
  const selection = state.selection;
  if (state.decision === "fix") return "Fix the trump (扣主): show jokers and lay a base, or pass.";
  if (state.decision === "give_back") return `Give back (回牌): ${guafeng.give_back.note} (${selected} selected).`;
  if (state.decision === "bury") {
    return `You take the kitty: bury ${state.layout.kitty_size} cards (${selected} selected); the trump is still hidden.`;
  }
  if (guafeng.first_lead) return "Your lead: one card (the first lead of a hand is a single card; it reveals the trump).";
  if (!guafeng.lead) {
    const note = selection && selection.note ? ` Selected: ${selection.note}.` : "";
    return `Your lead: one combination (single, pair, tractor, bomb or run).${note}`;
  }
  const need = selection ? selection.needed : 0;
  return `Follow the ${guafeng.lead} with ${need} card${need > 1 ? "s" : ""}.`;
}

function drawPanels() {
  const bidding = state.your_turn && ["bid", "fix"].includes(state.decision);
  $("bid-panel").classList.toggle("hidden", !bidding);
  if (bidding) {
    const standing = state.standing_bid;
    const fixing = state.decision === "fix";
    $("bid-title").textContent = fixing ? "Fix the trump (扣主)?" : "Declare trump?";
    if (fixing) {
      const fix = state.guafeng.standing;
      $("bid-note").textContent = fix ? `Standing fix: ${fix}. A fix below eats it (吃).` : "Nobody has fixed yet.";
    } else {
      $("bid-note").textContent = standing ? `Standing: ${standing.text} by ${seatByNumber(standing.seat).label}.` : "Nobody has declared yet.";
    }
    const buttons = $("bid-buttons");
    buttons.replaceChildren();
    for (const option of state.bid_options) {
      const button = el("button", "bid", fixing ? option.text : `${option.text} (${option.cards.join(" ")})`);
      button.type = "button";
      button.dataset.index = option.index;
      button.addEventListener("click", () => send({ type: state.decision, index: option.index }));
      buttons.append(button);
    }
    const pass = el("button", "ghost pass", "Pass");
    pass.type = "button";
    pass.addEventListener("click", () => send({ type: "pass" }));
    buttons.append(pass);
  }
  const result = state.result;
  $("result-panel").classList.toggle("hidden", !result);
  if (result) {
    $("result-title").textContent = state.match.over && state.episode === "match" ? "Match over"
      : `Hand ${state.hand_number} over`;
    $("result-points").textContent = result.defender_points;
    $("result-kitty-points").textContent = `${result.kitty_points} pts × ${result.kitty_multiplier}` + (result.kitty_text
      ? ` → ${result.kitty_bonus >= 0 ? "+" : ""}${result.kitty_bonus}`  // 刮风: the stage team's 捡底 counts against
      : result.kitty_bonus ? ` → +${result.kitty_bonus}` : " (not won)");
    $("result-summary").textContent = result.kitty_text ? `${result.kitty_text} ${result.summary}` : result.summary;
    $("result-kitty").replaceChildren(...result.kitty.map((c) => cardEl(c, true)));
    $("result-log").href = `/api/games/${gameId}/log?hand=${state.logs}`;
    $("next-hand").classList.toggle("hidden", state.match.over);
  }
  const log = $("download-log");
  log.classList.toggle("hidden", !state.logs);
  log.href = `/api/games/${gameId}/log?hand=${state.logs}`;
  $("watch-controls").classList.toggle("hidden", !state.watch);
  $("auto").textContent = state.auto ? "Pause" : "Auto play";
  $("step").disabled = state.auto;
}

function draw() {
  drawSeats();
  drawTrick(state.trick);
  drawScore();
  drawHand();
  drawPrompt();
  drawPanels();
  document.body.dataset.phase = state.phase;
  document.body.dataset.decision = state.decision || "";
  document.body.dataset.rules = state.rules;
  document.body.dataset.watch = state.watch ? "yes" : "no";
  document.body.dataset.yourTurn = state.your_turn ? "yes" : "no";
  document.body.dataset.version = state.version;
  document.body.dataset.selected = state.selection ? state.selection.cards.length : 0;
  document.body.dataset.hand = state.hand_number;
}

// ------------------------------------------------------------------ the state queue and animations
async function showFinishedTrick(next) {
  const previous = state;
  state = next;
  drawSeats();
  drawTrick(next.last_trick.plays, next.last_trick.winner);
  drawHand();
  leaveTurn();  // the next decision is shown once the trick is collected
  $("trick-note").textContent = `${seatByNumber(next.last_trick.winner).label} win${seatByNumber(next.last_trick.winner).label === "You" ? "" : "s"} +${next.last_trick.points}`;
  await sleep(1100 * pace());
  const trick = $("trick");
  trick.style.setProperty("--anim", `${Math.round(350 * pace())}ms`);
  trick.classList.add("collect", `to-${positionOf(next.last_trick.winner)}`);
  await sleep(380 * pace());
  $("trick-note").textContent = "";
  return previous;
}

async function pump() {
  if (animating) return;
  animating = true;
  try {
    while (queue.length) {
      const next = queue.shift();
      const finishedTrick = state && next.hand_number === state.hand_number && next.tricks_played > state.tricks_played
        && next.last_trick;
      if (finishedTrick) await showFinishedTrick(next);
      state = next;
      draw();
    }
  } finally {
    animating = false;
  }
}

function onMessage(event) {
  const message = JSON.parse(event.data);
  if (message.type === "state") {
    queue.push(message);
    pump();
  } else if (message.type === "error" && message.fatal) {
    leaveGame(message.message);
  } else if (message.type === "error") {
    toast(message.message);
  } else if (message.type === "hint") {
    if (message.cards.length) {
      send({ type: "select", cards: message.cards });
    } else {
      const target = message.bid === null ? document.querySelector("#bid-buttons .pass")
        : document.querySelector(`#bid-buttons [data-index="${message.bid}"]`);
      if (target) target.classList.add("suggested");
      toast(message.bid === null ? "Hint: pass." : `Hint: ${target ? target.textContent : "bid"}.`);
    }
  }
}

// ------------------------------------------------------------------ connecting and the lobby
function tokenKey(id) { return `shengjizero.seat.${id}`; }

// A join link (#game=ID&token=T) is read once: the token is kept in this browser (a reload or a dropped
// connection gets the seat back) and the address bar keeps only #game=ID, so a copied address is a
// spectator's link, never the seat.
function connect(id, token) {
  gameId = id;
  if (token) localStorage.setItem(tokenKey(id), token);
  seatToken = token || localStorage.getItem(tokenKey(id));
  history.replaceState(null, "", `#game=${id}`);
  state = null;
  queue = [];
  shownPlays = new Set();
  $("lobby").classList.add("hidden");
  drawRoom();
  open();
}

function open() {
  clearTimeout(reconnectTimer);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const query = seatToken ? `?token=${encodeURIComponent(seatToken)}` : "";
  if (socket) socket.close();
  const mine = new WebSocket(`${scheme}://${location.host}/ws/${gameId}${query}`);
  socket = mine;
  let fatal = false;
  mine.addEventListener("message", (event) => {
    if (socket !== mine) return;
    if (event.data.includes('"fatal"')) fatal = true;
    onMessage(event);
  });
  mine.addEventListener("close", () => {
    if (socket !== mine || fatal) return;
    socket = null;
    toast("Connection to the table lost: reconnecting…");
    reconnectTimer = setTimeout(open, 1500);  // the seat waits on the server
  });
}

// The server refused the table (a bad link, a game it does not hold, the seat opened elsewhere): say why
// in the lobby.
function leaveGame(reason) {
  if (seatToken && /token/.test(reason)) localStorage.removeItem(tokenKey(gameId));
  const closing = socket;
  socket = null;
  if (closing) closing.close();
  history.replaceState(null, "", location.pathname);
  gameId = null;
  state = null;
  $("room").classList.add("hidden");
  openLobby(reason);
}

// The links of a room this browser created (kept with its token), for the people it invites.
function drawRoom() {
  const box = $("room");
  const links = JSON.parse(localStorage.getItem(`shengjizero.links.${gameId}`) || "[]");
  box.classList.toggle("hidden", !gameId);
  const list = $("room-links");
  list.replaceChildren();
  const base = `${location.origin}${location.pathname}`;
  for (const link of links) {
    if (link.token === seatToken) continue;
    list.append(linkRow(`${link.label} seat (only for the person who sits there)`, base + link.link));
  }
  list.append(linkRow("Spectators (watch only)", `${base}#game=${gameId}`));
}

function linkRow(label, url) {
  const row = el("li", "link-row");
  const input = el("input");
  input.readOnly = true;
  input.value = url;
  const copy = el("button", "ghost copy", "Copy");
  copy.type = "button";
  copy.addEventListener("click", async () => {
    input.select();
    try { await navigator.clipboard.writeText(url); toast("Link copied."); } catch (error) { document.execCommand("copy"); }
  });
  row.append(el("span", "link-label", label), input, copy);
  return row;
}

const SEAT_NAMES = ["South", "East", "North", "West"];

async function openLobby(notice) {
  if (state && !state.match.over && !notice && !confirm("Leave this game for the lobby? It stays on the server; "
    + "its link opens it again.")) return;
  $("lobby-notice").textContent = notice || "";
  $("lobby-notice").classList.toggle("hidden", !notice);
  const options = await (await fetch("/api/options")).json();
  const defaults = options.default_seats;
  for (const seat of [0, 1, 2, 3]) {
    const select = $(`seat-${seat}`);
    const was = select.value;
    select.replaceChildren();
    // Checkpoints come by name, with a label from their card; the server keeps the file paths.
    const choices = [["human", "Person (gets a join link)"], ["ai", "Default AI"],
      ...options.bots.map((b) => [b, `${b} bot`]),
      ...options.checkpoints.flatMap((c) => [[c.name, c.label], ...(c.players || []).map((p) => [p.name, p.label])])];
    for (const [value, label] of choices) {
      const option = new Option(label, value);
      option.title = label;  // a narrowed menu cuts long checkpoint labels; hovering shows them whole
      select.append(option);
    }
    select.value = was || (seat === 0 ? "human" : defaults[seat] === "human" ? "human" : defaults[seat]);
    if (!select.value) select.value = "ai";
  }
  $("rules").value = options.rules;
  const rule = options.rule_options || {};
  $("opt-kitty").value = rule.kitty_multiplier || "exponential";
  $("opt-throw").value = rule.throw_penalty || 0;
  $("opt-chaodipi").checked = Boolean(rule.chaodipi);
  $("opt-tribute").checked = Boolean(rule.tribute);
  $("opt-twos").checked = Boolean(rule.constant_twos);
  const decks = $("opt-decks");
  if (options.deck_choices && options.deck_choices.length) {
    decks.replaceChildren(...options.deck_choices.map((choice) => new Option(choice.text, String(choice.decks))));
  }
  decks.value = String(rule.decks || 2);  // the options leave out the two-deck default
  for (const option of $("ai-speed").options) {
    const seconds = (options.ai_speeds || {})[option.value];
    if (seconds !== undefined) option.title = `${seconds} s before each AI move`;
  }
  showRuleOptions();
  $("lobby-cancel").classList.toggle("hidden", !gameId);
  $("lobby").classList.remove("hidden");
}

function showRuleOptions() {
  $("rule-options").classList.toggle("hidden", $("rules").value !== "standard");
}

function ruleOptions() {
  if ($("rules").value !== "standard") return {};
  return { kitty_multiplier: $("opt-kitty").value, throw_penalty: Number($("opt-throw").value || 0),
    chaodipi: $("opt-chaodipi").checked, tribute: $("opt-tribute").checked, constant_twos: $("opt-twos").checked,
    decks: Number($("opt-decks").value) };
}

async function startGame(event) {
  event.preventDefault();
  const watch = document.querySelector("input[name=mode]:checked").value === "watch";
  const seats = [0, 1, 2, 3].map((seat) => $(`seat-${seat}`).value);
  const seed = $("seed").value === "" ? null : Number($("seed").value);
  const body = { seats, watch, seed, episode: $("episode").value, rules: $("rules").value, options: ruleOptions(),
    ai_speed: $("ai-speed").value, away: $("away").value };
  const response = await fetch("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const created = await response.json();
  if (!response.ok) {
    const detail = typeof created.detail === "string" ? created.detail : "could not create the game";
    $("lobby-notice").textContent = detail;
    $("lobby-notice").classList.remove("hidden");
    return;
  }
  localStorage.setItem(`shengjizero.links.${created.id}`, JSON.stringify(created.links));
  state = null;
  connect(created.id, created.links.length ? created.links[0].token : null);  // the creator sits first
}

function init() {
  for (const heading of document.querySelectorAll("#side h3")) {
    heading.addEventListener("click", () => heading.parentElement.classList.toggle("collapsed"));
  }
  $("lobby-form").addEventListener("submit", startGame);
  $("rules").addEventListener("change", showRuleOptions);
  $("new-game").addEventListener("click", () => openLobby());
  $("lobby-cancel").addEventListener("click", () => { if (gameId) $("lobby").classList.add("hidden"); });
  $("submit").addEventListener("click", () => {
    if (!(state && state.selection && state.selection.complete)) return;
    send({ type: state.selection.action, cards: state.selection.cards });
    leaveTurn();
  });
  $("clear").addEventListener("click", () => send({ type: "select", cards: [] }));
  $("hint").addEventListener("click", () => send({ type: "hint" }));
  $("next-hand").addEventListener("click", () => send({ type: "next_hand" }));
  $("replay-hand").addEventListener("click", () => openReplay(state.logs));
  $("replay-prev").addEventListener("click", () => stepReplay(-1));
  $("replay-next").addEventListener("click", () => stepReplay(1));
  $("replay-close").addEventListener("click", closeReplay);
  document.addEventListener("keydown", (event) => {
    if (!replay) return;
    if (event.key === "ArrowLeft") stepReplay(-1);
    if (event.key === "ArrowRight") stepReplay(1);
    if (event.key === "Escape") closeReplay();
  });
  $("step").addEventListener("click", () => send({ type: "step" }));
  $("auto").addEventListener("click", () => send({ type: "auto", on: !(state && state.auto) }));
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.get("game")) {
    connect(params.get("game"), params.get("token"));
  } else {
    openLobby();
  }
}

init();
