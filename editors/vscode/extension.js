// The VS Code side of `idp lsp`: starts the server named by the setting `idp.path` and hands
// .idp files to it. Everything else (diagnostics, hover, lenses, ...) is the server's.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function start() {
  const idp = vscode.workspace.getConfiguration("idp").get("path") || "idp";
  const server = { command: idp, args: ["lsp"] };
  client = new LanguageClient(
    "idp",
    "IDP",
    { run: server, debug: server },
    {
      documentSelector: [
        { scheme: "file", language: "idp" },
        { scheme: "untitled", language: "idp" },
      ],
    }
  );
  return client.start().catch((error) => {
    vscode.window.showErrorMessage(
      `IDP: could not start \`${idp} lsp\` (${error.message}). Set idp.path to the idp program.`
    );
  });
}

function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("idp.restart", async () => {
      if (client) {
        await client.stop();
      }
      await start();
    })
  );
  return start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
