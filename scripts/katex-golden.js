#!/usr/bin/env node
// KaTeX's MathML for the math corpus, the reference BlogMathTests compares blog's converter with.
//   NODE_PATH=/usr/share/nodejs node scripts/katex-golden.js          rewrite the golden file
//   NODE_PATH=/usr/share/nodejs node scripts/katex-golden.js --check  exit 1 when it is stale
// One Node process renders the whole corpus (Debian's `katex` package provides the module).
"use strict";
const fs = require("fs");
const path = require("path");
const katex = require("katex");
const options = { output: "mathml", displayMode: true, throwOnError: true, strict: "ignore" };

const dir = path.join(__dirname, "..", "Tests", "BlogMathTests", "Fixtures");
const corpus = fs.readFileSync(path.join(dir, "corpus.tex"), "utf8")
  .split("\n").filter((line) => line.trim() !== "" && !line.startsWith("%"));
const lines = corpus.map((tex) => {
  try {
    const html = katex.renderToString(tex, options);
    // the MathML alone: KaTeX wraps it in <span class="katex">, which blog does not write
    const start = html.indexOf("<math"), end = html.lastIndexOf("</math>") + "</math>".length;
    return html.slice(start, end).replace(/\n/g, " ");
  } catch (error) {
    return "ERROR " + String(error.message).replace(/\n/g, " ");
  }
});
const text = "katex " + katex.version + "\n" + lines.join("\n") + "\n";
const golden = path.join(dir, "katex.mathml");
if (process.argv.includes("--check")) {
  const old = fs.existsSync(golden) ? fs.readFileSync(golden, "utf8") : "";
  if (old !== text) { console.error("katex-golden: " + golden + " differs from live KaTeX; rerun without --check"); process.exit(1); }
  console.log("katex-golden: " + corpus.length + " formulas match live KaTeX " + katex.version);
} else {
  fs.writeFileSync(golden, text);
  console.log("katex-golden: wrote " + corpus.length + " formulas (KaTeX " + katex.version + ")");
}
