// tellmemore web chat: plain JavaScript over the /v1 API, no build step.
// Answers stream as server-sent events (resolution, citations, delta, done); every piece
// of text from the server goes into the page through textContent, never as HTML.
"use strict";

(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const thread = $("#thread");
  const scroller = $("#scroller");
  const form = $("#composer");
  const input = $("#composer-input");
  const sendBtn = $("#send");
  const KEY_STORE = "tellmemore.apiKey";

  // stick: keep the newest text in view unless the user scrolled up to read.
  const state = { sessionId: null, busy: false, pending: null, stick: true };

  // --- small DOM helpers ----------------------------------------------------------------

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  const ICONS = {
    search: "M11 18a7 7 0 1 0 0-14 7 7 0 0 0 0 14zM21 21l-5-5",
    link: "M10 14a5 5 0 0 0 7 0l3-3a5 5 0 0 0-7-7l-1 1M14 10a5 5 0 0 0-7 0l-3 3a5 5 0 0 0 7 7l1-1",
    edit: "M4 20h4L19 9l-4-4L4 16v4zM13.5 6.5l4 4",
    up: "M7 11v9H4v-9h3zM7 11l4-8a2 2 0 0 1 2 2v4h5.5a2 2 0 0 1 2 2.3l-1.2 7A2 2 0 0 1 17.3 20H7",
    down: "M17 13V4h3v9h-3zM17 13l-4 8a2 2 0 0 1-2-2v-4H5.5a2 2 0 0 1-2-2.3l1.2-7A2 2 0 0 1 6.7 4H17",
    info: "M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM12 16v-4M12 8h.01",
  };

  function icon(name) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", ICONS[name]);
    svg.append(path);
    return svg;
  }

  function nearBottom() {
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 160;
  }

  function scrollDown(force = false) {
    if (force) state.stick = true;
    if (state.stick) scroller.scrollTop = scroller.scrollHeight;
  }

  scroller.addEventListener("scroll", () => {
    state.stick = nearBottom();
  });

  // --- the API --------------------------------------------------------------------------

  function headers() {
    const h = { "Content-Type": "application/json", Accept: "application/json" };
    const key = localStorage.getItem(KEY_STORE);
    if (key) h.Authorization = `Bearer ${key}`;
    return h;
  }

  async function problemOf(res) {
    try {
      const body = await res.json();
      return { status: res.status, title: body.title || res.statusText, detail: body.detail || "" };
    } catch {
      return { status: res.status, title: res.statusText || "Request failed", detail: "" };
    }
  }

  async function post(path, body) {
    const res = await fetch(path, { method: "POST", headers: headers(), body: JSON.stringify(body) });
    if (res.status === 401) showAuth();
    return res;
  }

  // Reads `event:` / `data:` frames from a fetch body; calls onEvent(name, data) for each.
  async function readSSE(res, onEvent) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let name = "message";
        const data = [];
        for (const line of frame.split("\n")) {
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (data.length) onEvent(name, JSON.parse(data.join("\n")));
      }
    }
  }

  // --- one answer on the page ---------------------------------------------------------

  class AnswerView {
    constructor({ corrected = false } = {}) {
      this.corrected = corrected;
      this.answer = null;
      this.node = el("article", { class: "answer", "aria-busy": "true" });
      this.queryLine = el("div", { class: "query-line", hidden: true });
      this.body = el("div", { class: "answer-body" });
      this.sources = el("section", { class: "sources", hidden: true });
      this.foot = el("div", { class: "answer-foot", hidden: true });
      this.text = el("div", { class: "answer-text streaming" });
      this.thinking = el("div", { class: "thinking" },
        el("span", { class: "dots", "aria-hidden": "true" }, el("i"), el("i"), el("i")),
        el("span", { text: "Searching the documents…" }));
      this.body.append(this.thinking);
      this.node.append(this.queryLine, this.body, this.sources, this.foot);
      this.streamed = "";
    }

    // "Searching for: ..." at once, before retrieval is done.
    resolution(data) {
      if (data.decision !== "retrieve" || !data.standalone_query || data.ambiguous) {
        this.thinking.lastChild.textContent = "Writing…";
        return;
      }
      const about = [...new Set(Object.values(data.bindings || {}))].join(", ");
      this.renderQueryLine(data.standalone_query, about || null, false);
    }

    citations(list) {
      this.renderSources(list, null);
    }

    delta(text) {
      if (this.thinking.isConnected) this.thinking.replaceWith(this.text);
      this.streamed += text;
      this.text.textContent = this.streamed;
      scrollDown();
    }

    done(answer) {
      this.answer = answer;
      this.node.dataset.traceId = answer.trace_id;
      this.node.removeAttribute("aria-busy");
      this.body.replaceChildren();
      const retrieved = answer.decision === "retrieve" && !answer.clarification;
      if (retrieved && answer.standalone_query) {
        this.renderQueryLine(answer.standalone_query, answer.answering_about, true);
      } else {
        this.queryLine.hidden = true;
      }
      if (answer.clarification) {
        this.renderClarification(answer);
      } else if (answer.abstained) {
        this.renderAbstention(answer);
      } else {
        const text = el("div", { class: "answer-text" });
        text.append(...withCitationLinks(answer.answer, answer.citations));
        this.body.append(text);
      }
      for (const note of degradedNotes(answer.degraded || [])) {
        this.body.append(el("p", { class: "degraded-note", role: "note", text: note }));
      }
      this.renderSources(answer.citations, answer.trace_id);
      this.renderFoot(answer);
      scrollDown();
    }

    fail(problem) {
      this.node.removeAttribute("aria-busy");
      this.body.replaceChildren(
        el("div", { class: "error-box", role: "alert" },
          el("strong", { text: problem.title || "Something went wrong" }),
          problem.detail || ""));
      this.sources.hidden = true;
    }

    renderQueryLine(query, about, final) {
      const rows = el("div", { class: "query-rows" },
        el("div", { class: "query-row" }, icon("search"),
          el("span", {},
            el("span", { class: "query-label", text: "Searching for:" }),
            el("span", { class: "query-text searching-for", text: query }),
            this.corrected ? el("span", { class: "corrected-tag", text: "corrected" }) : null)));
      if (about) {
        rows.append(el("div", { class: "query-row" }, icon("link"),
          el("span", {},
            el("span", { class: "query-label", text: "Answering about:" }),
            el("span", { class: "about-text answering-about", text: about }))));
      }
      this.queryLine.replaceChildren(rows);
      if (final) {
        this.queryLine.append(el("div", { class: "query-actions" },
          el("button", {
            type: "button", class: "link-btn edit-query",
            title: "Fix what was searched and answer again",
            onclick: () => this.openCorrection(),
          }, icon("edit"), "Edit the search")));
      }
      this.queryLine.hidden = false;
    }

    openCorrection() {
      if (!this.answer || $(".correct-form", this.queryLine)) {
        $(".correct-input", this.queryLine)?.focus();
        return;
      }
      const field = el("input", {
        type: "text", class: "correct-input", "aria-label": "Corrected search query",
        value: this.answer.standalone_query || this.answer.message,
      });
      const submit = el("button", { type: "submit", class: "btn btn-primary correct-submit" },
        "Search again");
      const cancel = el("button", {
        type: "button", class: "btn", onclick: () => correction.remove(),
      }, "Cancel");
      const correction = el("form", { class: "correct-form" }, field, submit, cancel,
        el("p", { class: "correct-help",
          text: "Write the question as it should have been searched, e.g. name the plan or tier you meant." }));
      correction.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const query = field.value.trim();
        if (!query) return field.focus();
        submit.disabled = true;
        await correctTurn(this, query);
        correction.remove();
      });
      this.queryLine.append(correction);
      field.focus();
      field.select();
    }

    renderClarification(answer) {
      const options = answer.clarification_options || [];
      const box = el("div", { class: "clarify" },
        el("p", { class: "clarify-q", text: answer.clarification }));
      if (options.length) {
        const choices = el("div", { class: "choices", role: "group", "aria-label": "Choose one" });
        for (const option of options) {
          choices.append(el("button", {
            type: "button", class: "chip clarify-option",
            onclick: (ev) => {
              if (state.busy) return;
              for (const b of choices.querySelectorAll("button")) b.disabled = true;
              ev.currentTarget.classList.add("chosen");
              ask(option);
            },
          }, option));
        }
        box.append(choices);
      }
      this.body.append(box);
    }

    renderAbstention(answer) {
      const next = el("button", {
        type: "button", class: "link-btn next",
        onclick: () => this.openCorrection(),
      }, icon("edit"), "Edit the search and try again");
      this.body.append(el("div", { class: "abstain", role: "status" },
        icon("info"),
        el("span", { class: "abstain-title", text: "Not found in the documents" }),
        el("p", { text: answer.answer }),
        answer.standalone_query ? el("div", {}, next) : null));
    }

    renderSources(list, traceId) {
      if (!list || !list.length) {
        this.sources.hidden = true;
        return;
      }
      const items = list.map((c, i) => {
        const title = c.url
          ? el("a", { class: "source-title", href: c.url, target: "_blank", rel: "noopener noreferrer",
            id: traceId ? `src-${traceId}-${i + 1}` : null }, c.title || c.doc)
          : el("span", { class: "source-title" }, c.title || c.doc);
        const section = (c.section || []).join(" › ");
        return el("li", { class: "source" },
          el("span", { class: "source-n", text: String(i + 1) }),
          el("div", { class: "source-head" }, title,
            section ? el("span", { class: "source-section", text: section }) : null,
            c.version ? el("span", { class: "version", title: "Document version", text: `v${c.version}` }) : null,
            c.pages && c.pages.length ? el("span", { class: "pages", title: "Pages of the source", text: pageLabel(c.pages) }) : null,
            c.flags && c.flags.length ? el("span", { class: "flagged", title: `This source holds text aimed at an AI model (${c.flags.join(", ")}); it is quoted as data only.`, text: "⚠ instructions in source" }) : null),
          c.snippet ? el("p", { class: "source-snippet", text: c.snippet }) : null);
      });
      this.sources.replaceChildren(el("h3", { text: "Sources" }), el("ol", {}, items));
      this.sources.hidden = false;
    }

    renderFoot(answer) {
      const up = el("button", { type: "button", class: "icon-btn up fb-up", title: "Good answer",
        "aria-label": "Good answer", "aria-pressed": "false" }, icon("up"));
      const down = el("button", { type: "button", class: "icon-btn down fb-down", title: "Bad answer",
        "aria-label": "Bad answer", "aria-pressed": "false" }, icon("down"));
      const trace = el("span", { class: "trace", title: `trace ${answer.trace_id}`,
        text: `trace ${answer.trace_id.slice(0, 8)}` });
      this.foot.replaceChildren(up, down, trace);
      const choose = (rating) => this.openFeedback(rating, up, down);
      up.addEventListener("click", () => choose("up"));
      down.addEventListener("click", () => choose("down"));
      this.foot.hidden = false;
    }

    openFeedback(rating, up, down) {
      for (const [b, r] of [[up, "up"], [down, "down"]]) {
        b.classList.toggle("on", r === rating);
        b.setAttribute("aria-pressed", String(r === rating));
      }
      $(".fb-form", this.foot)?.remove();
      const reason = el("input", {
        type: "text", class: "fb-reason", maxlength: "2000", "aria-label": "Reason (optional)",
        placeholder: rating === "up" ? "What was helpful? (optional)" : "What was wrong? (optional)",
      });
      const sendIt = el("button", { type: "submit", class: "btn btn-primary fb-send" }, "Send feedback");
      const fbForm = el("form", { class: "fb-form" }, reason, sendIt);
      fbForm.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        sendIt.disabled = true;
        const res = await post("/v1/feedback", {
          trace_id: this.answer.trace_id, rating, reason: reason.value.trim() || null,
        });
        if (res.ok) {
          up.disabled = down.disabled = true;
          fbForm.remove();
          down.after(el("span", { class: "fb-status", role: "status",
            text: "Thanks, your feedback was saved." }));
        } else {
          const p = await problemOf(res);
          sendIt.disabled = false;
          fbForm.append(el("span", { class: "fb-error error-box", text: `${p.title}: ${p.detail}` }));
        }
      });
      this.foot.append(fbForm);
      reason.focus({ preventScroll: true });
      fbForm.scrollIntoView({ block: "nearest" });
    }
  }

  // Why part of the turn fell back (Answer.degraded), as tellmemore/answer/degraded.py says it.
  function degradedNotes(degraded) {
    const stages = {
      generate: "The LLM could not answer (WHY); this answer is quoted from the sources.",
      rewrite: "The LLM could not rewrite the answer (WHY); it was shortened by rule.",
      resolve: "The LLM could not resolve the follow-up (WHY); the rules resolved it.",
      summary: "The conversation summary could not be refreshed (WHY).",
    };
    return degraded.map((item) => {
      if (item === "generate:uncited") {
        return "The model cited no source for this answer: check it against them.";
      }
      const [stage, kind] = item.split(":", 2);
      const why = (kind || "unknown error").replaceAll("_", " ");
      return (stages[stage] || `${stage} fell back (WHY).`).replace("WHY", why);
    });
  }

  // "p. 4" or "pp. 4-5": where a passage of a paged source (PDF) is.
  function pageLabel(pages) {
    return pages.length === 1 ? `p. ${pages[0]}` : `pp. ${pages[0]}-${pages[pages.length - 1]}`;
  }

  // "[1]" markers become links to the cited document.
  function withCitationLinks(text, citations) {
    const parts = [];
    const re = /\[(\d+)\]/g;
    let last = 0;
    let m;
    while ((m = re.exec(text)) !== null) {
      const n = Number(m[1]);
      const c = citations[n - 1];
      if (!c) continue;
      parts.push(text.slice(last, m.index));
      const pages = c.pages && c.pages.length ? `, ${pageLabel(c.pages)}` : "";
      const label = `${c.title}${c.version ? ` (v${c.version})` : ""}${pages}`;
      parts.push(c.url
        ? el("a", { class: "cite", href: c.url, target: "_blank", rel: "noopener noreferrer",
          title: label, "aria-label": `Source ${n}: ${label}` }, String(n))
        : el("span", { class: "cite", title: label }, String(n)));
      last = m.index + m[0].length;
    }
    parts.push(text.slice(last));
    return parts;
  }

  // --- conversation flow --------------------------------------------------------------

  function setBusy(busy) {
    state.busy = busy;
    sendBtn.disabled = busy;
    form.setAttribute("aria-busy", String(busy));
  }

  async function ask(message) {
    if (state.busy) return;
    $("#welcome")?.remove();
    setBusy(true);
    const bubble = el("div", { class: "msg-user", text: message });
    const view = new AnswerView();
    thread.append(bubble, view.node);
    scrollDown(true);
    try {
      const body = { message, stream: true };
      if (state.sessionId) body.session_id = state.sessionId;
      const res = await post("/v1/chat", body);
      if (!res.ok) {
        if (res.status === 401) state.pending = { message, nodes: [bubble, view.node] };
        view.fail(await problemOf(res));
        return;
      }
      await readSSE(res, (name, data) => {
        if (name === "resolution") view.resolution(data);
        else if (name === "citations") view.citations(data.citations);
        else if (name === "delta") view.delta(data.text);
        else if (name === "done") {
          state.sessionId = data.session_id || state.sessionId;
          view.done(data);
        } else if (name === "error") view.fail(data);
      });
      if (!view.answer && view.node.getAttribute("aria-busy")) {
        view.fail({ title: "The answer was cut off", detail: "The connection closed early; try again." });
      }
    } catch (err) {
      view.fail({ title: "Could not reach the server", detail: String(err.message || err) });
    } finally {
      setBusy(false);
      input.focus();
    }
  }

  async function correctTurn(view, query) {
    const fixed = new AnswerView({ corrected: true });
    view.node.after(fixed.node);
    fixed.renderQueryLine(query, null, false);
    try {
      const res = await post(`/v1/chat/${encodeURIComponent(view.answer.trace_id)}/correct`,
        { standalone_query: query });
      if (!res.ok) return fixed.fail(await problemOf(res));
      fixed.done(await res.json());
    } catch (err) {
      fixed.fail({ title: "Could not reach the server", detail: String(err.message || err) });
    }
  }

  // --- composer, new chat, API key ----------------------------------------------------

  function autoGrow() {
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight, 192)}px`;
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const message = input.value.trim();
    if (!message || state.busy) return;
    input.value = "";
    autoGrow();
    ask(message);
  });

  input.addEventListener("input", autoGrow);
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });

  const welcome = $("#welcome");
  $("#new-chat").addEventListener("click", () => {
    if (state.busy) return;
    state.sessionId = null;
    thread.replaceChildren(welcome);
    input.focus();
  });

  function showAuth() {
    $("#auth-banner").hidden = false;
    $("#api-key").focus();
  }

  $("#auth-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const key = $("#api-key").value.trim();
    if (!key) return;
    localStorage.setItem(KEY_STORE, key);
    $("#auth-banner").hidden = true;
    if (state.pending) {  // send the refused message again, in place of the failed attempt
      const { message, nodes } = state.pending;
      state.pending = null;
      for (const node of nodes) node.remove();
      ask(message);
    }
  });

  input.focus();
})();
