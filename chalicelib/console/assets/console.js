// The console's own script: confirmations and the spend charts. No inline script is allowed
// (strict CSP), so pages carry data as JSON blocks and data-* attributes read from here.
(function () {
  "use strict";

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form && form.getAttribute && form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) {
      event.preventDefault();
    }
  }, true);

  function data(id) {
    var block = document.getElementById(id);
    return block ? JSON.parse(block.textContent) : null;
  }

  function unique(values) {
    return values.filter(function (v, i) { return values.indexOf(v) === i; }).sort();
  }

  var palette = ["#7a1f2b", "#2f6db5", "#2f8f5b", "#c07a12", "#6b4fa3", "#8a8f98", "#b5487a", "#3f9aa3"];

  // Bars of `rows` per day, stacked by `seriesKey`: each bar sums `valueKey` over the day's rows.
  function stacked(canvasId, rows, seriesKey, valueKey, yTitle, extra) {
    var canvas = document.getElementById(canvasId);
    if (!canvas || typeof Chart === "undefined") { return; }
    var days = unique(rows.map(function (r) { return r.day; }));
    var series = unique(rows.map(function (r) { return r[seriesKey]; }));
    function total(day, name) {
      var sum = 0;
      rows.forEach(function (r) { if (r.day === day && r[seriesKey] === name) { sum += r[valueKey]; } });
      return sum;
    }
    var datasets = series.map(function (name, i) {
      return {
        type: "bar", label: name, backgroundColor: palette[i % palette.length], stack: "all",
        data: days.map(function (day) { return total(day, name); })
      };
    });
    if (extra) { datasets.push(extra(days)); }
    var chart = new Chart(canvas, {
      data: { labels: days, datasets: datasets },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: yTitle } } }
      }
    });
    canvas.setAttribute("data-rendered", String(chart.data.datasets.length));
  }

  function spendCharts() {
    var spend = data("spend-data");
    if (!spend) { return; }
    stacked("spend-chart", spend.days, "purpose", "cost_usd", "USD per day", function (labels) {
      return { type: "line", label: "daily budget", borderColor: "#1d232b", borderDash: [6, 4], pointRadius: 0,
               data: labels.map(function () { return spend.budget_usd; }) };
    });
    stacked("embedding-chart", spend.embeddings, "model", "memories", "memories embedded per day");
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", spendCharts);
  } else {
    spendCharts();
  }
})();
