// charts.js - tiny SVG charts, written here (no library): lineChart and barChart take series
// [{name, points: [{x, y, label}]}]: x is the point's key along the axis (points of several series with one x
// line up), label what the axis shows (default x), y a number or its exact text. Every mark carries data-x / data-y (the exact values shown,
// so tests and assistive tools can read them) and a <title> tooltip; the svg has role="img" and a label.
const NS = 'http://www.w3.org/2000/svg';
const W = 640, H = 240, PAD = { l: 64, r: 12, t: 12, b: 36 };

function s(tag, attrs = {}, ...kids) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const k of kids) el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return el;
}

function niceTicks(lo, hi, n = 4) {
  if (lo === hi) hi = lo + 1;
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((st) => st >= raw);
  const start = Math.floor(lo / step) * step;
  const ticks = [];
  for (let v = start; v <= hi + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

const short = (v) => {
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toPrecision(3)}G`;
  if (a >= 1e6) return `${(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${(v / 1e3).toPrecision(3)}k`;
  return String(Number(v.toPrecision(6)));
};

function frame(series, label, zero) {
  const xs = [...new Set(series.flatMap((se) => se.points.map((p) => p.x)))];
  const labels = new Map(series.flatMap((se) => se.points.map((p) => [p.x, p.label ?? p.x])));
  const ys = series.flatMap((se) => se.points.map((p) => Number(p.y))).filter(Number.isFinite);
  let lo = ys.length ? Math.min(...ys) : 0;
  let hi = ys.length ? Math.max(...ys) : 1;
  if (zero) lo = Math.min(lo, 0), hi = Math.max(hi, 0);
  const ticks = niceTicks(lo, hi);
  lo = Math.min(lo, ticks[0]);
  hi = Math.max(hi, ticks[ticks.length - 1]);
  const y = (v) => PAD.t + (H - PAD.t - PAD.b) * (1 - (v - lo) / (hi - lo || 1));
  const svg = s('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': label });
  svg.append(s('title', {}, label));
  for (const t of ticks) {
    svg.append(s('line', { class: 'axis', x1: PAD.l, x2: W - PAD.r, y1: y(t), y2: y(t) }));
    svg.append(s('text', { x: PAD.l - 6, y: y(t) + 4, 'text-anchor': 'end' }, short(t)));
  }
  const every = Math.max(1, Math.ceil(xs.length / 8));
  return { svg, xs, y, every, labels };
}

function xLabel(svg, x, text, anchor = 'middle') {
  svg.append(s('text', { x, y: H - PAD.b + 16, 'text-anchor': anchor }, text));
}

export function lineChart(series, label) {
  const { svg, xs, y, every, labels } = frame(series, label, false);
  const step = xs.length > 1 ? (W - PAD.l - PAD.r) / (xs.length - 1) : 0;
  const x = (lab) => PAD.l + (xs.length > 1 ? xs.indexOf(lab) * step : (W - PAD.l - PAD.r) / 2);
  // the end points' labels are anchored inwards so they stay inside the frame
  const anchor = (i) => (xs.length < 2 ? 'middle' : i === 0 ? 'start' : i === xs.length - 1 ? 'end' : 'middle');
  xs.forEach((lab, i) => { if (i % every === 0 || i === xs.length - 1) xLabel(svg, x(lab), labels.get(lab), anchor(i)); });
  series.forEach((se, k) => {
    const pts = se.points.filter((p) => Number.isFinite(Number(p.y)));
    const d = pts.map((p, i) => `${i ? 'L' : 'M'}${x(p.x).toFixed(1)},${y(Number(p.y)).toFixed(1)}`).join('');
    svg.append(s('path', { class: `line s${k % 4}`, d }));
    for (const p of pts) {
      svg.append(s('circle', { class: `point s${k % 4}`, cx: x(p.x), cy: y(Number(p.y)), r: 3,
        'data-series': se.name, 'data-x': p.x, 'data-y': p.y }, s('title', {}, `${se.name} ${p.label ?? p.x}: ${p.y}`)));
    }
  });
  return svg;
}

export function barChart(series, label) {
  const { svg, xs, y, every, labels } = frame(series, label, true);
  const band = (W - PAD.l - PAD.r) / Math.max(1, xs.length);
  const bw = Math.max(1, (band * 0.8) / Math.max(1, series.length));
  xs.forEach((lab, i) => { if (i % every === 0 || i === xs.length - 1) xLabel(svg, PAD.l + band * (i + 0.5), labels.get(lab)); });
  series.forEach((se, k) => {
    for (const p of se.points) {
      const v = Number(p.y);
      if (!Number.isFinite(v)) continue;
      const x0 = PAD.l + band * xs.indexOf(p.x) + band * 0.1 + bw * k;
      const top = Math.min(y(v), y(0));
      svg.append(s('rect', { class: `bar s${k % 4}`, x: x0, y: top, width: bw, height: Math.max(1, Math.abs(y(v) - y(0))),
        'data-series': se.name, 'data-x': p.x, 'data-y': p.y }, s('title', {}, `${se.name} ${p.label ?? p.x}: ${p.y}`)));
    }
  });
  return svg;
}

export function legend(series) {
  const el = document.createElement('div');
  el.className = 'legend';
  series.forEach((se, k) => {
    const span = document.createElement('span');
    span.className = `s${k % 4}`;
    span.textContent = `\u25A0 ${se.name}`;
    el.append(span);
  });
  return el;
}
