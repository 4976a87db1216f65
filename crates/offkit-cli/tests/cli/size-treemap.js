<script>
// Injected into a copy of `offkit size --html`'s page by size.test (the page itself has no
// script): each leaf's area as the browser lays it out (getBBox), against its share of the
// bytes; the result is a line in the DOM that `chromium --dump-dom` prints.
const svg = document.getElementById('treemap');
const total = Number(svg.getAttribute('data-bytes'));
const vb = svg.viewBox.baseVal, whole = vb.width * vb.height;
let n = 0, worst = 0, sum = 0;
for (const r of svg.querySelectorAll('rect.leaf')) {
  const b = r.getBBox(), area = b.width * b.height, bytes = Number(r.getAttribute('data-bytes'));
  worst = Math.max(worst, Math.abs(area / whole - bytes / total));
  sum += area;
  n++;
}
const ok = n > 0 && worst < 1e-5 && Math.abs(sum / whole - 1) < 1e-5;
const out = document.createElement('pre');
out.id = 'result';
out.textContent = ['leaves=' + n, 'worst=' + worst.toExponential(2),
                   'cover=' + (sum / whole).toFixed(6), 'ok=' + ok].join(' ');
document.body.appendChild(out);
</script>
