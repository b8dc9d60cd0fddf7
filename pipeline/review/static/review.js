// memroute review: progressive enhancement only (every action works without this file).
// - times in the viewer's own zone; - "Erase everywhere" asks first; - "/" focuses the search;
// - Escape closes an open editor or menu.
"use strict";
// <time datetime="2026-12-01T22:19:08+00:00">1 Dec 2026, 22:19 UTC</time> -> the viewer's zone and
// language. A date alone (a MEMORY.md day, month or year, as precise as the user said it) is a
// calendar date: the server's words stay, never shifted to another day.
const timeFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric",
                                                        hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
for (const el of document.querySelectorAll("time[datetime]")) {
  const value = el.getAttribute("datetime");
  if (!value.includes("T")) continue;
  const when = new Date(value);
  if (!Number.isNaN(when.getTime())) el.textContent = timeFormat.format(when);
}
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) event.preventDefault();
});
document.addEventListener("keydown", (event) => {
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName || "");
  if (event.key === "/" && !typing) {
    const search = document.getElementById("q");
    if (search) { event.preventDefault(); search.focus(); }
  } else if (event.key === "Escape") {
    const open = document.activeElement?.closest("details[open]") || document.querySelector("details.menu[open]");
    if (open) { open.open = false; open.querySelector("summary")?.focus(); }
  }
});
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (details.open && details.classList?.contains("inline-details")) {
    details.querySelector("input:not([type=hidden])")?.focus();
  }
}, true);
// One menu open at a time; a click elsewhere closes it.
document.addEventListener("click", (event) => {
  for (const menu of document.querySelectorAll("details.menu[open]")) {
    if (!menu.contains(event.target)) menu.open = false;
  }
});
