// The search page's few behaviours: highlight boxes over page images, keyboard
// navigation, the live status. No build step, no library.
"use strict";

// Boxes: each .frame names the JSON of its page's boxes (fractions of the page).
function drawBoxes(frame) {
  const url = frame.dataset.boxes;
  if (!url) return;
  fetch(url, { credentials: "same-origin" })
    .then((r) => (r.ok ? r.json() : { boxes: [] }))
    .then((found) => {
      for (const [x0, top, x1, bottom] of found.boxes) {
        const box = document.createElement("span");
        box.className = "hit";
        box.style.left = (x0 * 100).toFixed(3) + "%";
        box.style.top = (top * 100).toFixed(3) + "%";
        box.style.width = ((x1 - x0) * 100).toFixed(3) + "%";
        box.style.height = ((bottom - top) * 100).toFixed(3) + "%";
        frame.appendChild(box);
      }
      frame.dataset.drawn = String(found.boxes.length);
    })
    .catch(() => { frame.dataset.drawn = "0"; });
}

function results() {
  return Array.from(document.querySelectorAll("#results > li"));
}

function select(items, n) {
  items.forEach((item, i) => item.classList.toggle("selected", i === n));
  if (items[n]) {
    items[n].scrollIntoView({ block: "nearest" });
  }
}

function onKey(event) {
  const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(event.target.tagName);
  if (event.key === "/" && !typing) {
    event.preventDefault();
    const box = document.getElementById("q");
    if (box) { box.focus(); box.select(); }
    return;
  }
  if (typing) {
    if (event.key === "ArrowDown" && event.target.id === "q" && results().length) {
      event.preventDefault();
      event.target.blur();
      select(results(), 0);
    }
    return;
  }
  const items = results();
  const now = items.findIndex((item) => item.classList.contains("selected"));
  if (event.key === "ArrowDown" && items.length) {
    event.preventDefault();
    select(items, Math.min(now + 1, items.length - 1));
  } else if (event.key === "ArrowUp" && items.length) {
    event.preventDefault();
    select(items, Math.max(now - 1, 0));
  } else if (event.key === "Enter" && now >= 0) {
    const target = items[now].querySelector("a.title");
    if (target) { event.preventDefault(); window.location.href = target.href; }
  } else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    const pager = document.getElementById(event.key === "ArrowLeft" ? "prev" : "next");
    if (pager) { event.preventDefault(); window.location.href = pager.href; }
  }
}

// The live status: one server-sent event each time it changes.
function followStatus() {
  const line = document.getElementById("status");
  if (!line || !window.EventSource) return;
  const source = new EventSource("/events");
  source.addEventListener("status", (event) => {
    const now = JSON.parse(event.data);
    line.textContent = now.text;
    line.classList.toggle("busy", Boolean(now.indexing));
  });
  window.addEventListener("pagehide", () => source.close());
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".frame[data-boxes]").forEach(drawBoxes);
  document.addEventListener("keydown", onKey);
  // A filter changed: search again at once (the form's URL is the search).
  document.querySelectorAll("form.search select").forEach((choice) => {
    choice.addEventListener("change", () => choice.form.submit());
  });
  followStatus();
});
