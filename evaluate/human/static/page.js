// The annotation page: one task at a time, answers saved through the local server's JSON API.
// Plain JavaScript on purpose: nothing to build, nothing fetched from outside 127.0.0.1.
"use strict";

const $ = (id) => document.getElementById(id);
let state = null;      // GET /api/state
let task = null;       // GET /api/task/<position>
let hits = [];         // <mark> elements of the current search, in document order
let hitAt = -1;        // the current match
let visibleMs = 0;     // time on this task while the page is visible
let visibleSince = null;
let saving = false;

// -- time on task (paused while the tab is hidden) ----------------------------------------------
function startTimer() {
  visibleMs = 0;
  visibleSince = document.hidden ? null : performance.now();
}
function elapsedSeconds() {
  const running = visibleSince === null ? 0 : performance.now() - visibleSince;
  return (visibleMs + running) / 1000;
}
document.addEventListener("visibilitychange", () => {
  if (document.hidden && visibleSince !== null) {
    visibleMs += performance.now() - visibleSince;
    visibleSince = null;
  } else if (!document.hidden && visibleSince === null) {
    visibleSince = performance.now();
  }
});
function clock(seconds) {
  const s = Math.floor(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
setInterval(() => { if (task) $("timer").textContent = clock(elapsedSeconds()); }, 500);

// -- talking to the server ---------------------------------------------------------------------
async function api(path, options) {
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new Error("the server did not answer (is `reflong-build human` still running?)");
  }
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}
function say(text, kind) {
  const status = $("status");
  status.textContent = text;
  status.className = kind || "";
}
function showState(s) {
  state = s;
  $("who").textContent = `· ${s.model} · ${s.setting}`;
  $("answered").textContent = `${s.answered} of ${s.total} answered`;
  $("progress").max = s.total;
  $("progress").value = s.answered;
}

// -- one task -----------------------------------------------------------------------------------
async function load(position) {
  try {
    task = await api(`/api/task/${position}`);
  } catch (err) {
    say(`Could not load task ${position}: ${err.message}`, "error");
    return;
  }
  $("done").hidden = true;
  $("task").hidden = false;
  $("answerbar").hidden = false;
  $("position").textContent = `Task ${task.position} of ${task.total}`;
  $("key").textContent = task.key;
  $("key-sticky").textContent = task.key;
  $("instructions").textContent = task.instructions;
  const box = $("documents");
  box.replaceChildren();
  task.documents.forEach((text, i) => {
    const doc = document.createElement("article");
    doc.className = "doc";
    doc.id = `doc-${i}`;
    doc.dataset.index = String(i);
    const head = document.createElement("header");
    const num = document.createElement("span");
    num.className = "num";
    num.textContent = String(i);
    const title = document.createElement("span");
    title.className = "title";
    title.textContent = `Document ${i}`;
    const count = document.createElement("span");
    count.className = "hits";
    const mark = document.createElement("button");
    mark.type = "button";
    mark.className = "mark";
    mark.addEventListener("click", () => toggle(i));
    head.append(num, title, count, mark);
    const body = document.createElement("pre");
    body.className = "text";
    body.textContent = text;
    doc.append(head, body);
    box.append(doc);
  });
  $("indexes").value = task.answer ? (task.answer.indexes.length ? task.answer.indexes.join(", ") : "none") : "";
  syncMarks();
  search();
  say(task.answer ? `Answered before (${clock(task.answer.seconds)}); saving again replaces that answer.` : "");
  $("prev-task").disabled = task.position <= 1;
  $("next-task").disabled = task.position >= task.total;
  window.scrollTo(0, 0);
  measureBars();
  startTimer();
  $("timer").textContent = clock(0);
}

function showDone() {
  task = null;
  $("task").hidden = true;
  $("answerbar").hidden = true;
  $("done").hidden = false;
  $("position").textContent = `All ${state.total} tasks answered`;
  $("done-text").textContent = `${state.answered} of ${state.total} tasks of ${state.setting} answered as ${state.model}.`;
}

// -- the answer field and the per-document buttons ---------------------------------------------
function readIndexes(text, m) {
  const t = text.trim().replace(/^[{[(]|[}\])]$/g, "").trim();
  if (t === "") return { error: "Type the indexes of the documents (e.g. 1, 4), or none." };
  if (/^(none|no|-)$/i.test(t)) return { indexes: [] };
  const parts = t.split(/[\s,;]+/).filter(Boolean);
  const out = new Set();
  for (const p of parts) {
    if (!/^\d+$/.test(p)) return { error: `"${p}" is not a document index; use numbers such as 1, 4.` };
    const i = Number(p);
    if (i >= m) return { error: `There is no document ${i}: this task has documents 0 to ${m - 1}.` };
    out.add(i);
  }
  return { indexes: [...out].sort((a, b) => a - b) };
}
function currentSet() {
  const parsed = readIndexes($("indexes").value, task ? task.documents.length : 0);
  return new Set(parsed.indexes || []);
}
function syncMarks() {
  const chosen = currentSet();
  document.querySelectorAll(".doc").forEach((doc) => {
    const on = chosen.has(Number(doc.dataset.index));
    doc.classList.toggle("marked", on);
    doc.querySelector(".mark").textContent = on ? "✓ refers to the key" : "Mark: refers to the key";
  });
}
function toggle(i) {
  const chosen = currentSet();
  if (chosen.has(i)) chosen.delete(i); else chosen.add(i);
  $("indexes").value = [...chosen].sort((a, b) => a - b).join(", ");
  syncMarks();
}

async function save() {
  if (!task || saving) return;
  const parsed = readIndexes($("indexes").value, task.documents.length);
  if (parsed.error) { say(parsed.error, "error"); $("indexes").focus(); return; }
  saving = true;
  say("Saving…");
  try {
    const s = await api("/api/answer", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ task: task.task, indexes: parsed.indexes, seconds: elapsedSeconds() }),
    });
    showState(s);
    const saved = task.position;
    if (s.next === null) showDone();
    else await load(saved < s.total && s.next <= saved ? saved + 1 : s.next);
    say(`Task ${saved} saved.`, "ok");
  } catch (err) {
    say(`Not saved: ${err.message}. Your answer is still in the field; press Save again.`, "error");
  } finally {
    saving = false;
  }
}

// -- search within the page, with highlights ------------------------------------------------------
function escapeRegExp(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }
function search() {
  if (!task) return;
  const q = $("search").value.trim();
  const pattern = q.length >= 2 ? new RegExp(escapeRegExp(q), "gi") : null;
  hits = [];
  hitAt = -1;
  let docsWith = 0;
  document.querySelectorAll(".doc").forEach((doc) => {
    const text = task.documents[Number(doc.dataset.index)];
    const body = doc.querySelector(".text");
    const count = doc.querySelector(".hits");
    if (!pattern) { body.textContent = text; count.textContent = ""; return; }
    const parts = document.createDocumentFragment();
    let last = 0, n = 0;
    for (const m of text.matchAll(pattern)) {
      parts.append(text.slice(last, m.index));
      const mark = document.createElement("mark");
      mark.textContent = m[0];
      parts.append(mark);
      hits.push(mark);
      last = m.index + m[0].length;
      n += 1;
    }
    parts.append(text.slice(last));
    body.replaceChildren(parts);
    count.textContent = n ? `${n} match${n > 1 ? "es" : ""}` : "";
    if (n) docsWith += 1;
  });
  $("matches").textContent = pattern ? `${hits.length} matches in ${docsWith} documents` : "";
}
function step(delta) {
  if (!hits.length) return;
  if (hitAt >= 0) hits[hitAt].classList.remove("now");
  hitAt = (hitAt + delta + hits.length) % hits.length;
  const hit = hits[hitAt];
  hit.classList.add("now");
  hit.scrollIntoView({ block: "center" });
  const doc = hit.closest(".doc");
  $("matches").textContent = `match ${hitAt + 1} of ${hits.length} (document ${doc.dataset.index})`;
}

let searchTimer = null;
$("search").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(search, 150); });
$("search").addEventListener("keydown", (e) => {
  if (e.key === "Enter") { e.preventDefault(); clearTimeout(searchTimer); if (hitAt < 0 && !hits.length) search(); step(e.shiftKey ? -1 : 1); }
});
$("find-key").addEventListener("click", () => { $("search").value = task ? task.key : ""; search(); step(1); });
$("prev-match").addEventListener("click", () => step(-1));
$("next-match").addEventListener("click", () => step(1));
$("indexes").addEventListener("input", syncMarks);
$("indexes").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); save(); } });
$("save").addEventListener("click", save);
$("prev-task").addEventListener("click", () => task && task.position > 1 && load(task.position - 1));
$("next-task").addEventListener("click", () => task && task.position < task.total && load(task.position + 1));

// -- the sticky bars' heights, for the CSS that keeps scrolled-to text clear of them ----------------
function measureBars() {
  const root = document.documentElement.style;
  root.setProperty("--bar", `${$("bar").offsetHeight}px`);
  root.setProperty("--search", `${$("searchbar").offsetHeight}px`);
  root.setProperty("--answer", `${$("answerbar").offsetHeight}px`);
  const head = document.querySelector(".doc header");
  if (head) root.setProperty("--dochead", `${head.offsetHeight}px`);
}
window.addEventListener("resize", measureBars);

// -- start where the annotator stopped: the first unanswered task ---------------------------------
(async function boot() {
  try {
    showState(await api("/api/state"));
  } catch (err) {
    say(`Cannot start: ${err.message}`, "error");
    return;
  }
  if (state.next === null) showDone();
  else await load(state.next);
})();
