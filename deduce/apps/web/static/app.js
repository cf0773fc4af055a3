// deduce's table notebook: taps become the lines the terminal assistant reads.
// The server renders the board; this script builds the pickers from the state it sends
// (the adapter's event grammar) and posts one line at a time. No libraries, no build step.
"use strict";

(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const el = (tag, attrs, ...kids) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === false || v === null || v === undefined) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat()) if (kid !== null && kid !== undefined) node.append(kid);
    return node;
  };

  const slug = document.body.dataset.slug;
  const stateNode = $("#state");
  let state = stateNode ? JSON.parse(stateNode.textContent) : null;
  let formIndex = 0;
  let values = {};

  function say(text, outcome) {
    const box = $("#message");
    box.textContent = text || "";
    box.className = outcome || "";
  }

  // the first lines of an answer: what was done, not the text grid that follows it
  function headline(message) {
    const lines = (message || "").split("\n");
    const cut = lines.findIndex((l) => l.startsWith("  "));
    return (cut < 0 ? lines : lines.slice(0, cut)).join("\n").trim();
  }

  async function post(url, data) {
    let response;
    try {
      response = await fetch(url, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(data),
      });
    } catch (err) {
      say("error: the server did not answer (" + err + "); nothing was changed", "refused");
      return null;
    }
    let reply;
    try { reply = await response.json(); } catch (err) { reply = { outcome: "refused", message: "error: " + response.status }; }
    return reply;
  }

  async function sendLine(line) {
    const entry = $("#entry");
    entry.classList.add("busy");  // taps before the answer comes would be lost in the redraw
    let reply;
    try { reply = await post(`/t/${slug}/line`, { line: line }); } finally { entry.classList.remove("busy"); }
    if (!reply) return;
    if (reply.state) update(reply);
    const text = reply.outcome === "ok" ? headline(reply.message) : reply.message;
    say(text, reply.outcome);
    if (reply.outcome === "ok") values = {};
    renderEntry();
  }

  function update(reply) {
    state = reply.state;
    $("#board").innerHTML = reply.board;
  }

  // -- setup ---------------------------------------------------------------------------------
  function renderSetup(box) {
    const s = state.setup;
    const step = state.step;
    box.append(el("h2", { text: "Set-up" }), el("p", { class: "prompt", text: state.prompt }));
    if (step === "players") {
      const list = el("div", { class: "names" });
      const add = (name) => list.append(el("input", { type: "text", value: name || "", placeholder: "name",
        "aria-label": "player name", autocapitalize: "words", class: "name" }));
      const low = s.seats[0];
      const start = (s.answers.players || []).length ? s.answers.players : Array(low).fill("");
      start.forEach(add);
      box.append(list,
        el("div", { class: "chips" },
          el("button", { class: "chip", text: "+ player", onclick: () => add("") }),
          el("button", { class: "chip", text: "- player", onclick: () => list.lastChild && list.lastChild.remove() }),
          el("button", { class: "chip go", id: "setup-go", text: "these players, in seat order", onclick: () => {
            const names = [...list.querySelectorAll("input")].map((i) => i.value.trim()).filter((n) => n);
            if (names.some((n) => /\s|,/.test(n))) { say("error: a name is one word (no spaces or commas)", "refused"); return; }
            sendLine(names.join(" "));
          } })));
      return;
    }
    if (step === "me") {
      box.append(el("div", { class: "chips" },
        state.players.map((p) => el("button", { class: "chip", "data-pick": p, text: p, onclick: () => sendLine(p) })),
        el("button", { class: "chip", text: "spectator (no cards)", onclick: () => sendLine("spectator") })));
      return;
    }
    if (step === "deck") {
      const custom = el("input", { type: "text", placeholder: "suspects: A, B; weapons: C, D; rooms: E, F", class: "wide" });
      box.append(el("div", { class: "chips" },
        el("button", { class: "chip go", text: "classic deck", onclick: () => sendLine("classic") })),
        custom, el("button", { class: "chip", text: "use this deck", onclick: () => sendLine(custom.value) }));
      return;
    }
    if (step === "hand_sizes") {
      const m = /\[([\d ]+)\]/.exec(state.prompt);
      const sizes = m ? m[1].trim().split(/\s+/) : [];
      const inputs = state.players.map((p, i) => el("input", { type: "number", min: "0", max: "30", value: sizes[i] || "", "aria-label": p }));
      box.append(el("div", { class: "sizes" }, state.players.map((p, i) => el("label", {}, p + " ", inputs[i]))),
        el("div", { class: "chips" },
          el("button", { class: "chip go", text: "the even deal", onclick: () => sendLine("") }),
          el("button", { class: "chip", text: "these sizes", onclick: () => sendLine(inputs.map((x) => x.value).join(" ")) })));
      return;
    }
    // any other question: pick cards or a player when the question is about them, or type
    const input = el("input", { type: "text", class: "wide", id: "setup-text", "aria-label": state.prompt });
    const picked = [];
    if (/^who /i.test(state.prompt)) {
      box.append(el("div", { class: "chips" }, state.players.map((p) =>
        el("button", { class: "chip", "data-pick": p, text: p, onclick: () => sendLine(p) }))));
    } else if (s.cards.length) {
      const count = /\((\d+) cards/.exec(state.prompt) || /the (\d+) /.exec(state.prompt);
      const counter = el("span", { class: "count" });
      const show = () => { counter.textContent = `${picked.length}${count ? " of " + count[1] : ""} picked`; };
      let cat = null;
      const chips = el("div", { class: "chips cards" });
      for (const c of s.cards) {
        if (c.category !== cat) { cat = c.category; chips.append(el("span", { class: "cat", text: cat })); }
        chips.append(el("button", { class: "chip", "data-pick": c.name, text: c.name, onclick: (ev) => {
          const at = picked.indexOf(c.token);
          if (at < 0) picked.push(c.token); else picked.splice(at, 1);
          ev.currentTarget.classList.toggle("on", at < 0);
          input.value = picked.join(", ");
          show();
        } }));
      }
      show();
      box.append(counter, chips);
    }
    // what pressing enter answers: "[Ann]" (a default) or "enter: not drawn yet"
    const said = /enter: ([^);]+)/.exec(state.prompt) || /\[([^\]]+)\]/.exec(state.prompt);
    const fallback = said ? (said[0].startsWith("enter") ? said[1] : "default: " + said[1]) : null;
    box.append(input, el("div", { class: "chips" },
      el("button", { class: "chip go", id: "setup-go", text: "answer", onclick: () => sendLine(input.value) }),
      fallback ? el("button", { class: "chip", id: "setup-default", text: fallback, onclick: () => sendLine("") }) : null));
  }

  // -- events: one form per line of the adapter's grammar -------------------------------------
  const named = (form, name) => form.slots.findIndex((s) => s.name === name);

  function valueOf(form, name) {
    const i = named(form, name);
    return i < 0 ? undefined : values[i];
  }

  function offered(form, slot) {
    const h = slot.hint || {};
    if (h.only_if_me && (state.me === null || valueOf(form, h.only_if_me) !== state.me)) return false;
    if (h.unless && valueOf(form, h.unless[0]) === h.unless[1]) return false;
    if (h.pick_from && h.pick_from.some((n) => !valueOf(form, n))) return false;
    return true;
  }

  function groupOffered(form, group) {
    return form.slots.every((s) => s.group !== group || s.kind === "word" || offered(form, s));
  }

  function choices(form, slot) {
    const h = slot.hint || {};
    let out;
    if (slot.kind === "player") out = state.players.map((p) => ({ label: p, token: p }));
    else if (slot.kind === "card") {
      if (h.pick_from) {
        const picked = h.pick_from.map((n) => valueOf(form, n)).filter((v) => v);
        out = state.grid ? state.grid.filter((r) => picked.includes(r.token)).map((r) => ({ label: r.name, token: r.token, category: r.category })) : [];
      } else {
        out = (state.grid || []).filter((r) => !slot.category || r.category === slot.category)
          .map((r) => ({ label: r.name, token: r.token, category: r.category }));
        const seen = new Set();
        out = out.filter((c) => !seen.has(c.token) && seen.add(c.token));
      }
    } else out = [];
    out = out.concat((slot.options || []).map((o) => ({ label: o, token: o })));
    if (h.exclude) { const other = valueOf(form, h.exclude); out = out.filter((c) => c.token !== other); }
    return out;
  }

  function buildLine(form) {
    const parts = [form.word];
    const used = (g) => g === 0 || form.slots.some((s, i) => s.group === g && s.kind !== "word" && filled(values[i]));
    for (let i = 0; i < form.slots.length; i++) {
      const s = form.slots[i];
      if (!used(s.group) || !groupOffered(form, s.group)) continue;
      if (s.kind === "word") { parts.push(s.text); continue; }
      if (!offered(form, s)) continue;
      const v = values[i];
      if (!filled(v)) continue;
      const tokens = Array.isArray(v) ? v : [v];
      parts.push(s.prefix + tokens[0], ...tokens.slice(1));
    }
    return parts.join(" ");
  }

  const filled = (v) => v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && (!v.length || v.some((x) => x === "")));

  function complete(form) {
    return form.slots.every((s, i) => s.group !== 0 || s.kind === "word" || !offered(form, s) || filled(values[i]));
  }

  function renderSlot(form, slot, i, refresh) {
    const label = slot.name + (slot.group ? " (optional)" : "");
    const wrap = el("fieldset", { class: "slot", "data-slot": slot.name },
      el("legend", { text: label.replace(/_/g, " ").toLowerCase() }));
    if (slot.kind === "player" || slot.kind === "card" || slot.kind === "choice") {
      const list = slot.kind === "choice" ? slot.options.map((o) => ({ label: o, token: o })) : choices(form, slot);
      const chips = el("div", { class: "chips" + (slot.kind === "card" ? " cards" : "") });
      let cat = null;
      for (const c of list) {
        if (slot.kind === "card" && !slot.category && c.category && c.category !== cat && list.length > 8) {
          cat = c.category; chips.append(el("span", { class: "cat", text: cat }));
        }
        const on = slot.many ? (values[i] || []).includes(c.token) : values[i] === c.token;
        chips.append(el("button", { class: "chip" + (on ? " on" : ""), "data-pick": c.label, text: c.label, onclick: () => {
          if (slot.many) {
            const now = (values[i] || []).slice();
            const at = now.indexOf(c.token);
            if (at < 0) now.push(c.token); else now.splice(at, 1);
            values[i] = now;
          } else values[i] = values[i] === c.token ? undefined : c.token;
          refresh();
        } }));
      }
      wrap.append(chips);
    } else if (slot.kind === "number") {
      const seats = slot.count === -1 ? state.players : [null];
      const now = slot.count === -1 ? (values[i] || seats.map(() => "")) : [values[i] || ""];
      wrap.append(el("div", { class: "sizes" }, seats.map((p, k) => el("label", {}, p ? p + " " : "",
        el("input", { type: "number", min: "0", max: "99", inputmode: "numeric", value: now[k], "aria-label": p || slot.name,
          oninput: (ev) => { now[k] = ev.target.value.trim(); values[i] = slot.count === -1 ? now.slice() : now[0]; refresh(false); } })))));
    } else {
      const list = "words-" + i;
      wrap.append(el("input", { type: "text", class: "wide", list: list, value: Array.isArray(values[i]) ? values[i].join(" ") : (values[i] || ""),
        "aria-label": slot.name, autocapitalize: "none",
        oninput: (ev) => { const t = ev.target.value.trim(); values[i] = slot.many ? t.split(/[\s,]+/).filter((x) => x) : t; refresh(false); } }),
      el("datalist", { id: list }, (state.words || []).map((w) => el("option", { value: w }))));
    }
    return wrap;
  }

  function renderForms(box) {
    const forms = state.forms || [];
    if (!forms.length) return;
    if (formIndex >= forms.length) formIndex = 0;
    const form = forms[formIndex];
    const tabs = el("div", { class: "chips tabs", role: "tablist" }, forms.map((f, k) => el("button", {
      class: "chip tab" + (k === formIndex ? " on" : ""), role: "tab", "data-form": f.syntax, title: f.description,
      text: f.syntax.split(" ").length > 1 && forms.filter((g) => g.word === f.word).length > 1 ? f.syntax.replace(/[A-Z_]+/g, (m) => m.toLowerCase()) : f.word,
      onclick: () => { formIndex = k; values = {}; renderEntry(); } })));
    const body = el("div", { class: "form", id: "event-form" });
    const preview = el("code", { class: "preview", id: "preview" });
    const add = el("button", { class: "chip go", id: "add", text: "add" });
    const refresh = (rebuild) => {
      if (rebuild !== false) {
        body.replaceChildren();
        form.slots.forEach((s, i) => {
          if (s.kind === "word" || !offered(form, s) || !groupOffered(form, s.group)) return;
          body.append(renderSlot(form, s, i, refresh));
        });
      }
      preview.textContent = buildLine(form);
      add.disabled = !complete(form);
    };
    add.addEventListener("click", () => sendLine(buildLine(form)));
    const typed = el("input", { type: "text", class: "wide", id: "typed", placeholder: "or type a line, as in the terminal", autocapitalize: "none" });
    typed.addEventListener("keydown", (ev) => { if (ev.key === "Enter") sendLine(typed.value); });
    box.append(el("h2", { text: "What happened" }), tabs, el("p", { class: "description", text: form.description }), body,
      el("div", { class: "addbar" }, add, preview), typed);
    refresh();
  }

  function renderEntry() {
    const box = $("#entry");
    if (!box || !state) return;
    box.replaceChildren();
    if (state.phase === "setup") renderSetup(box); else renderForms(box);
  }

  // -- the board: undo, redo, held-back lines, why -------------------------------------------
  document.addEventListener("click", async (ev) => {
    const target = ev.target.closest("[data-line], [data-why], [data-new]");
    if (!target || target.closest("#entry")) return;
    if (target.dataset.new !== undefined) {
      const reply = await post("/new", { game: target.dataset.new });
      if (reply && reply.url) window.location.href = reply.url; else if (reply) say(reply.message, "refused");
      return;
    }
    if (target.dataset.line !== undefined) { sendLine(target.dataset.line); return; }
    const response = await fetch(`/t/${slug}/why?card=${encodeURIComponent(target.dataset.why)}`, { credentials: "same-origin" });
    const reply = await response.json();
    const box = $("#why");
    box.hidden = false;
    box.textContent = reply.message;
    box.scrollIntoView({ block: "nearest" });
  });

  const upload = $("#upload");
  if (upload) upload.addEventListener("change", () => {
    const file = upload.files[0];
    if (!file) return;
    if (!window.confirm(`Replace this game with ${file.name}? (Download this one first to keep it.)`)) { upload.value = ""; return; }
    const reader = new FileReader();
    reader.onload = async () => {
      let log;
      try { log = JSON.parse(reader.result); } catch (err) { say("error: that file is not JSON: " + err, "refused"); return; }
      const reply = await post(`/t/${slug}/upload`, { log: log });
      if (!reply) return;
      if (reply.state) update(reply);
      say(reply.outcome === "ok" ? headline(reply.message) : reply.message, reply.outcome);
      values = {};
      renderEntry();
      upload.value = "";
    };
    reader.readAsText(file);
  });

  // another device at the same table (a phone and a laptop): pick up its changes every few
  // seconds, redrawing the board; the entry is redrawn only when the game itself changed shape
  const shape = (s) => JSON.stringify([s.phase, s.step, s.players, s.me]);
  const seen = (s) => JSON.stringify([s.events, s.pending, s.step, s.players, s.can_redo]);
  async function poll() {
    if (document.visibilityState !== "visible" || $("#entry").classList.contains("busy")) return;
    let reply;
    try {
      const response = await fetch(`/t/${slug}/state`, { credentials: "same-origin" });
      if (!response.ok) return;
      reply = await response.json();
    } catch (err) { return; }
    if ($("#entry").classList.contains("busy") || seen(reply.state) === seen(state)) return;
    const before = shape(state);
    update(reply);
    if (shape(state) !== before) { values = {}; renderEntry(); }
  }

  if (state) {
    say(state.held || headline(state.message), state.held ? "held" : "");
    renderEntry();
    window.setInterval(poll, 4000);
  }
})();
