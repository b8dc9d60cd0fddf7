// memroute review: progressive enhancement only (every action works without this file).
// - times in the viewer's own zone; - "Erase everywhere" asks first; - "/" focuses the search;
// - Escape closes an open editor or menu.
"use strict";
// <time datetime="2026-12-01T22:19:08+00:00">1 Dec 2026, 22:19 UTC</time> -> the viewer's zone and
// language; a date alone (a MEMORY.md day) is a calendar day and is never shifted.
const dayFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const timeFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric",
                                                        hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
for (const el of document.querySelectorAll("time[datetime]")) {
  const value = el.getAttribute("datetime");
  const when = new Date(value.length === 10 ? value + "T00:00:00Z" : value);
  if (!Number.isNaN(when.getTime())) el.textContent = (value.length === 10 ? dayFormat : timeFormat).format(when);
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
