// Judge for grammarvalidity: compiles each file named on argv as a script,
// then as a module (node --experimental-vm-modules), printing "ok" or the
// error's message, one line per file.
const fs = require("fs");
const vm = require("vm");
for (const path of process.argv.slice(2)) {
  const src = fs.readFileSync(path, "utf8");
  let msg = "ok";
  try {
    new vm.Script(src);
  } catch (e) {
    try {
      new vm.SourceTextModule(src);
    } catch (e2) {
      msg = String(e2.message || e2);
    }
  }
  console.log(msg.replace(/\n/g, " "));
}
