// pyfathom tablebase explorer: draws the board itself (SVG), asks this
// server's /standard for the position, plays moves through /explorer/play.
// The position lives in the URL (?fen=...), so back/forward and shared links work.
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const GLYPHS = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
  const OPPOSITE = {
    "win": "loss", "loss": "win", "syzygy-win": "syzygy-loss", "syzygy-loss": "syzygy-win",
    "maybe-win": "maybe-loss", "maybe-loss": "maybe-win", "cursed-win": "blessed-loss",
    "blessed-loss": "cursed-win", "draw": "draw", "unknown": "unknown",
  };
  const WORDS = {
    "win": "win", "syzygy-win": "win or 50-move draw (DTZ rounded)", "maybe-win": "win or 50-move draw",
    "cursed-win": "win, but drawn by the 50-move rule", "draw": "draw",
    "blessed-loss": "loss, but drawn by the 50-move rule", "maybe-loss": "loss or 50-move draw",
    "syzygy-loss": "loss or 50-move draw (DTZ rounded)", "loss": "loss", "unknown": "unknown (not in the tables)",
  };
  const DEFAULT_FEN = "4k3/6KP/8/8/8/8/7p/8 w - - 0 1";

  const boardEl = document.getElementById("board");
  const movesEl = document.getElementById("moves");
  const resultEl = document.getElementById("result");
  const errorEl = document.getElementById("error");
  const fenInput = document.getElementById("fen-input");

  const state = { fen: null, doc: null, flipped: false, selected: null, drag: null, lastMove: null, seq: 0 };

  function squareName(file, rank) { return "abcdefgh"[file] + (rank + 1); }

  function parsePlacement(fen) {
    const rows = fen.split(" ")[0].split("/");
    const pieces = {};
    rows.forEach((row, i) => {
      let file = 0;
      for (const ch of row) {
        if (/[1-8]/.test(ch)) { file += Number(ch); continue; }
        pieces[squareName(file, 7 - i)] = ch;
        file += 1;
      }
    });
    return pieces;
  }

  function xy(square) {
    const file = "abcdefgh".indexOf(square[0]);
    const rank = Number(square[1]) - 1;
    return state.flipped ? [7 - file, rank] : [file, 7 - rank];
  }

  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function drawBoard() {
    boardEl.replaceChildren();
    const pieces = parsePlacement(state.fen);
    const targets = new Set();
    if (state.selected && state.doc) {
      for (const m of state.doc.moves) if (m.uci.slice(0, 2) === state.selected) targets.add(m.uci.slice(2, 4));
    }
    for (let rank = 0; rank < 8; rank++) {
      for (let file = 0; file < 8; file++) {
        const sq = squareName(file, rank);
        const [x, y] = xy(sq);
        let cls = (file + rank) % 2 === 0 ? "dark" : "light";
        if (state.lastMove && (state.lastMove.slice(0, 2) === sq || state.lastMove.slice(2, 4) === sq)) cls += " lastmove";
        if (sq === state.selected) cls = "selected";
        else if (targets.has(sq)) cls = "target";
        boardEl.appendChild(el("rect", { x, y, width: 1, height: 1, class: cls, "data-square": sq }));
      }
    }
    for (let i = 0; i < 8; i++) {
      const file = state.flipped ? 7 - i : i;
      const rank = state.flipped ? i : 7 - i;
      boardEl.appendChild(el("text", { x: i + 0.04, y: 7.95, class: "coord" }, "abcdefgh"[file]));
      boardEl.appendChild(el("text", { x: 7.84, y: i + 0.2, class: "coord" }, String(rank + 1)));
    }
    for (const [sq, ch] of Object.entries(pieces)) {
      const [x, y] = xy(sq);
      const white = ch === ch.toUpperCase();
      boardEl.appendChild(el("text", {
        x: x + 0.5, y: y + 0.53, class: "piece " + (white ? "white" : "black"),
        "data-square": sq, "data-piece": ch,
      }, GLYPHS[ch.toLowerCase()]));
    }
  }

  function showError(message) {
    errorEl.textContent = message;
    errorEl.hidden = !message;
  }

  function dtzText(dtz, precise, label) {
    if (dtz === null || dtz === undefined) return "";
    const word = label || "DTZ";
    if (precise === null && dtz !== 0) return word + " " + dtz + " or " + (dtz > 0 ? dtz + 1 : dtz - 1);
    return word + " " + dtz;
  }

  function drawInfo() {
    const doc = state.doc;
    const turn = state.fen.split(" ")[1] === "b" ? "Black" : "White";
    let text;
    if (doc.checkmate) text = "Checkmate: " + turn.toLowerCase() + " is mated";
    else if (doc.stalemate) text = "Stalemate";
    else {
      text = turn + " to move: " + WORDS[doc.category];
      const dtz = dtzText(doc.dtz, doc.precise_dtz);
      if (dtz) text += " \u00b7 " + dtz;
      if (doc.insufficient_material) text += " \u00b7 insufficient material";
    }
    resultEl.textContent = text;
    resultEl.className = "result mover-" + doc.category;
    resultEl.dataset.category = doc.category;
    movesEl.replaceChildren();
    for (const m of doc.moves) {
      const mover = OPPOSITE[m.category];
      const li = document.createElement("li");
      li.className = "move mover-" + mover;
      li.tabIndex = 0;
      li.dataset.uci = m.uci;
      li.dataset.category = m.category;
      const san = document.createElement("span");
      san.className = "san";
      san.textContent = m.san;
      const what = document.createElement("span");
      what.className = "what";
      what.textContent = m.checkmate ? "checkmate" : m.stalemate ? "stalemate" : WORDS[mover];
      const dtz = document.createElement("span");
      dtz.className = "dtz";
      // The API gives the DTZ of the position after the move, for the
      // opponent; the list shows it for the side playing the move, labelled
      // "DTZ after" as it does not count the move itself (pyfathom probe's
      // move DTZ does: one convention each, each named).
      dtz.textContent = m.checkmate || m.dtz === null ? "" :
        dtzText(m.dtz === 0 ? 0 : -m.dtz, m.precise_dtz === null ? null : -m.precise_dtz, "DTZ after");
      dtz.title = "DTZ of the position this move leads to (the move itself not counted)";
      li.append(san, what, dtz);
      li.addEventListener("click", () => play(m.uci));
      li.addEventListener("keydown", (e) => { if (e.key === "Enter") play(m.uci); });
      movesEl.appendChild(li);
    }
  }

  async function getJson(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    let body;
    try { body = await response.json(); } catch (e) { body = { error: "bad answer from the server (" + response.status + ")" }; }
    if (!response.ok) throw new Error(body.error || ("HTTP " + response.status));
    return body;
  }

  function urlFen(fen) { return fen.replace(/ /g, "_"); }

  async function load(fen, push) {
    const seq = ++state.seq;
    fenInput.value = fen;
    document.body.dataset.loading = "1";
    try {
      const doc = await getJson("/standard?fen=" + encodeURIComponent(urlFen(fen)));
      if (seq !== state.seq) return;
      showError("");
      state.fen = fen;
      state.doc = doc;
      state.selected = null;
      if (push) history.pushState({ fen, lastMove: state.lastMove }, "", "?fen=" + urlFen(fen));
      drawBoard();
      drawInfo();
    } catch (e) {
      if (seq !== state.seq) return;
      showError(String(e.message || e));
    } finally {
      if (seq === state.seq) delete document.body.dataset.loading;
      document.body.dataset.fen = state.fen || "";
    }
  }

  async function play(uci) {
    try {
      const answer = await getJson("/explorer/play?fen=" + encodeURIComponent(urlFen(state.fen)) + "&uci=" + uci);
      state.lastMove = uci;
      await load(answer.fen, true);
    } catch (e) {
      showError(String(e.message || e));
    }
  }

  function movesBetween(from, to) {
    if (!state.doc) return [];
    return state.doc.moves.filter((m) => m.uci.slice(0, 2) === from && m.uci.slice(2, 4) === to);
  }

  function tryMove(from, to) {
    const candidates = movesBetween(from, to);
    if (!candidates.length) return false;
    const queen = candidates.find((m) => m.uci.length === 4 || m.uci[4] === "q");
    play((queen || candidates[0]).uci);
    return true;
  }

  function squareAt(event) {
    const point = boardEl.createSVGPoint();
    point.x = event.clientX;
    point.y = event.clientY;
    const p = point.matrixTransform(boardEl.getScreenCTM().inverse());
    if (p.x < 0 || p.y < 0 || p.x >= 8 || p.y >= 8) return null;
    let file = Math.floor(p.x);
    let rank = 7 - Math.floor(p.y);
    if (state.flipped) { file = 7 - file; rank = 7 - rank; }
    return { square: squareName(file, rank), x: p.x, y: p.y };
  }

  function ownPiece(square) {
    const ch = parsePlacement(state.fen)[square];
    if (!ch) return false;
    const whiteToMove = state.fen.split(" ")[1] !== "b";
    return (ch === ch.toUpperCase()) === whiteToMove;
  }

  boardEl.addEventListener("pointerdown", (event) => {
    if (!state.doc) return;
    const at = squareAt(event);
    if (!at) return;
    if (state.selected && state.selected !== at.square && tryMove(state.selected, at.square)) {
      state.selected = null;
      return;
    }
    if (ownPiece(at.square)) {
      state.selected = at.square;
      drawBoard();
      const piece = boardEl.querySelector('.piece[data-square="' + at.square + '"]');
      if (piece) {
        piece.classList.add("dragging");
        boardEl.appendChild(piece);
        state.drag = { from: at.square, piece, moved: false };
        boardEl.setPointerCapture(event.pointerId);
      }
    } else if (state.selected) {
      state.selected = null;
      drawBoard();
    }
  });

  boardEl.addEventListener("pointermove", (event) => {
    if (!state.drag) return;
    const at = squareAt(event);
    if (!at) return;
    state.drag.moved = true;
    state.drag.piece.setAttribute("x", at.x);
    state.drag.piece.setAttribute("y", at.y);
  });

  boardEl.addEventListener("pointerup", (event) => {
    const drag = state.drag;
    state.drag = null;
    if (!drag) return;
    const at = squareAt(event);
    if (at && at.square !== drag.from && tryMove(drag.from, at.square)) {
      state.selected = null;
      return;
    }
    drawBoard();  // back to its square; the piece stays selected for a click-click move
  });

  document.getElementById("fen-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const fen = fenInput.value.trim().replace(/_/g, " ");
    if (!fen) { showError("enter a FEN"); return; }
    state.lastMove = null;
    load(fen, true);
  });
  document.getElementById("back").addEventListener("click", () => history.back());
  document.getElementById("forward").addEventListener("click", () => history.forward());
  document.getElementById("flip").addEventListener("click", () => {
    state.flipped = !state.flipped;
    if (state.fen) drawBoard();
  });
  window.addEventListener("popstate", (event) => {
    const fen = (event.state && event.state.fen) || fenFromUrl();
    state.lastMove = (event.state && event.state.lastMove) || null;
    load(fen, false);
  });

  function fenFromUrl() {
    const param = new URLSearchParams(location.search).get("fen");
    return param ? param.replace(/_/g, " ") : DEFAULT_FEN;
  }

  const first = fenFromUrl();
  history.replaceState({ fen: first, lastMove: null }, "", "?fen=" + urlFen(first));
  load(first, false);
})();
