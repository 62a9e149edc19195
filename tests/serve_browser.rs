//! `idp serve` in a real browser: Debian's chromium, headless, driven through chromedriver
//! (WebDriver, with fantoccini). A whole consultation of a map colouring (choose, what
//! follows and what is impossible, why, why-not and its retract button, undo and redo, a
//! choice by keyboard, Save choices, the link reloaded and the saved block read back: the same
//! state). The page opens the seed's maze spec; a typed typo shows an
//! underlined diagnostic with the command line's code, Backspace fixes it, Run shows the model
//! table and the maze picture; a run with frames gets a slider; a late Stop keeps the models
//! found (300 tables, the others counted); an edit survives a reload as a draft and Ctrl-S
//! saves it with the focus outside the editor; Download saves the text as a file (checked on
//! disk, for a saved file and an untitled buffer); a bundled level is read from the page with an
//! expression; a run error links to its line; another page can neither read nor stop a run,
//! and closing the page ends it. A load test: twenty pages (windows of one chromium) run a spec
//! each at once, and every answer read from a page is the command line's. Screenshots go to
//! `target/screenshots/`;
//! `IDP_SCREENSHOTS=docs` writes them to `docs/` instead (`serve.png` is the README's).
//!
//! When chromium or chromedriver is missing (install them with `scripts/install-browser`), each
//! test says so on stderr and passes without doing anything else. The tests take turns.

mod support;

use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use support::crate_dir;
use support::serve::{scratch_dir, Server};

/// A procedure that fails on line 6.
const FAILING_SPEC: &str =
    "vocabulary V {\n    type T\n}\nprocedure main() {\n    local x = nil\n    print(x.field)\n}\n";
/// A procedure without end.
const ENDLESS_SPEC: &str =
    "vocabulary V {\n    type T\n}\nprocedure main() {\n    while true do end\n}\n";

/// The flags chromium needs here (as root, with no network but loopback).
/// (Timers of windows in the background are not slowed down: twenty pages poll their runs.)
const CHROMIUM_FLAGS: [&str; 12] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
];

const WAIT: Duration = Duration::from_secs(30);

/// A walk along the bottom row: `visualize` draws one frame per time point.
const FRAMES_SPEC: &str = "vocabulary V {\n    type Time isa int\n    type X isa int\n    type Y isa int\n    Wall(X, Y)\n    At(Time, X, Y)\n}\n\nstructure S : V {\n    Time = { 0..3 }\n    X = { 0..3 }\n    Y = { 0..1 }\n    Wall = { 1,1; 2,1 }\n    At = { 0,0,0; 1,1,0; 2,2,0; 3,3,0 }\n}\n\nprocedure main() {\n    visualize(S)\n}\n";

/// Every subset of 22 numbers is a model: the enumeration runs until stopped.
const TRIANGLE_SPEC: &str = "vocabulary V {\n  type Node\n  type Colour\n  Edge(Node, Node)\n  Col(Node) : Colour\n}\ntheory T : V {\n  ! x y : Edge(x, y) => Col(x) ~= Col(y).\n}\nstructure S : V {\n  Node = { a; b; c }\n  Colour = { red; green }\n  Edge = { a,b; b,c; c,a }\n}\n";
const MANY_SPEC: &str = "vocabulary V {\n    type T isa int\n    P(T)\n}\ntheory Th : V {\n}\nstructure S : V {\n    T = { 1..22 }\n}\n";

/// Four countries that all border each other, and a fifth beside two of them: with three
/// colours chosen for Belgium, Germany and France, Luxembourg's is forced.
const ENVIRONMENT_SPEC: &str = "vocabulary environment {\n    raining : () -> Bool\n    cold : () -> Bool\n}\nvocabulary decision {\n    import environment\n    type Gear := {coat, shorts}\n    wear : () -> Gear\n}\ntheory environment:environment {\n    raining() => cold().\n}\ntheory decision:decision {\n    cold() => wear() = coat.\n}\n";

const NUMBERS_SPEC: &str = "vocabulary V {\n    type Item := {a, b}\n    weight: Item -> Int\n    total: () -> Int\n    heavy: Item -> Bool\n}\ntheory T:V {\n    !i in Item: 0 =< weight(i) & weight(i) =< 10.\n    total() = weight(a) + weight(b).\n    !i in Item: heavy(i) <=> weight(i) > 3.\n}\n";

const DISPLAY_SPEC: &str = "vocabulary V {\n    type Len := {1..3}\n    type Area := {1..9}\n    side: () -> Len\n    area: () -> Area\n    metric: () -> Bool\n}\ntheory T:V {\n    area() = side() * side().\n}\ndisplay {\n    goal_symbol := {`area}.\n    hide(`metric).\n    unit('cm', `side).\n    heading('Dimensions', `side).\n    introduction('The area of a square').\n}\n";

const MAP_SPEC: &str = "vocabulary V {\n    type Country constructed from { Belgium, Netherlands, Luxembourg, Germany, France }\n    type Colour constructed from { Red, Green, Blue, Yellow }\n    Border(Country, Country)\n    ColourOf(Country) : Colour\n}\n\ntheory T : V {\n    ! x y : Border(x, y) => ColourOf(x) ~= ColourOf(y).\n}\n\nstructure S : V {\n    Border = { Belgium,Netherlands; Belgium,Luxembourg; Belgium,Germany; Belgium,France;\n               Netherlands,Germany; Luxembourg,Germany; Luxembourg,France; Germany,France }\n}\n";

/// A program on the PATH (or at the path in `env`), if present.
fn program(names: &[&str], env: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env).map(PathBuf::from) {
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Says on stderr (not captured by the test harness) why the browser test `name` does
/// nothing.
fn skip(name: &str, reason: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED serve_browser::{name}: {reason}; run scripts/install-browser (apt-get install chromium chromium-driver)"
    );
}

/// chromedriver on a free port, killed when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    fn start(path: &Path) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(path)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < WAIT, "chromedriver does not answer");
            std::thread::sleep(Duration::from_millis(100));
        }
        Driver { child, port }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The browser tests take turns: two chromiums at once would slow both on a small machine.
static ONE_BROWSER: Mutex<()> = Mutex::new(());

/// chromium and chromedriver, or `None` when one is missing (the test `name` then says on
/// stderr that it skipped, and why).
fn browser(name: &str) -> Option<(PathBuf, PathBuf)> {
    let Some(chromium) = program(&["chromium", "chromium-browser"], "CHROMIUM") else {
        skip(name, "no chromium on the PATH");
        return None;
    };
    let Some(chromedriver) = program(&["chromedriver"], "CHROMEDRIVER") else {
        skip(name, "no chromedriver on the PATH");
        return None;
    };
    Some((chromium, chromedriver))
}

#[test]
fn the_workbench_in_chromium() {
    let Some((chromium, chromedriver)) = browser("the_workbench_in_chromium") else {
        return;
    };
    let _turn = ONE_BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("browser");
    std::fs::copy(
        crate_dir().join("specs/maze/construction.idp"),
        dir.join("maze.idp"),
    )
    .expect("the maze spec");
    std::fs::write(dir.join("frames.idp"), FRAMES_SPEC).unwrap();
    copy_folder(&crate_dir().join("specs/theseus"), &dir.join("theseus"));
    let server = Server::start(&dir, &["maze.idp"]);
    let (server, folder) = (&server, dir.as_path());
    in_chromium(
        &chromium,
        &chromedriver,
        "browser",
        |c, downloads| async move { scenario(&c, server, folder, &downloads).await },
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_consultant_in_chromium() {
    let Some((chromium, chromedriver)) = browser("the_consultant_in_chromium") else {
        return;
    };
    let _turn = ONE_BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("consultant");
    std::fs::write(dir.join("map.idp"), MAP_SPEC).unwrap();
    let server = Server::start(&dir, &["map.idp"]);
    let server = &server;
    in_chromium(&chromium, &chromedriver, "consultant", |c, _| async move {
        consultation(&c, server).await
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// The state the consultant shows for `literal` (`chosen`, `forced`, `impossible`, `open`...).
async fn state_of(c: &Client, literal: &str) -> String {
    let css = format!("#consultant button.v[data-literal=\"{literal}\"]");
    let found = c.find(Locator::Css(&css)).await.unwrap();
    found.attr("data-state").await.unwrap().unwrap_or_default()
}

/// Clicks the value `literal` and waits until the consultant has answered.
async fn choose(c: &Client, literal: &str) {
    let css = format!("#consultant button.v[data-literal=\"{literal}\"]");
    click(c, &css).await;
    wait_for_js(
        c,
        "return !document.querySelector('#consultant[data-busy]')",
    )
    .await;
}

/// Every value's state, by literal.
async fn all_states(c: &Client) -> Value {
    c.execute(
        "return Object.fromEntries([...document.querySelectorAll('#consultant button.v')]\
         .map(b => [b.dataset.literal, b.dataset.state]))",
        vec![],
    )
    .await
    .unwrap()
}

/// A whole consultation of the map: choose, see what follows and what is impossible, ask why
/// and why not, retract through a why-not, undo and redo, choose by keyboard, save the choices
/// as a structure block, and reload the link: the same state.
async fn consultation(c: &Client, server: &Server) {
    c.goto(&server.url).await.unwrap();
    wait_css(c, "body[data-ready=\"true\"]").await;
    wait_css(c, "#check-status.good").await;
    c.execute(
        "const m = document.getElementById('mode'); m.value = 'consult';\
         m.dispatchEvent(new Event('change'));",
        vec![],
    )
    .await
    .unwrap();
    assert_eq!(text_of(c, "#run").await, "Consult");
    click(c, "#run").await;
    let status = wait_css(c, "#consultant .consult-status.good").await;
    assert!(
        status
            .text()
            .await
            .unwrap()
            .starts_with("0 choices — 0 values follow"),
        "{}",
        status.text().await.unwrap()
    );
    // Border is given: its values are the structure's, not choices.
    assert_eq!(state_of(c, "Border(Belgium,France)").await, "given");
    assert_eq!(state_of(c, "~Border(Belgium,France)").await, "impossible");
    assert_eq!(state_of(c, "ColourOf(Belgium) = Red").await, "open");

    // Belgium red: no neighbour can be red.
    choose(c, "ColourOf(Belgium) = Red").await;
    assert_eq!(state_of(c, "ColourOf(Belgium) = Red").await, "chosen");
    let pressed = c
        .find(Locator::Css(
            "#consultant button.v[data-literal=\"ColourOf(Belgium) = Red\"]",
        ))
        .await
        .unwrap();
    assert_eq!(
        pressed.attr("aria-label").await.unwrap().as_deref(),
        Some("ColourOf(Belgium) = Red: chosen")
    );
    assert_eq!(
        pressed.attr("aria-pressed").await.unwrap().as_deref(),
        Some("true")
    );
    assert_eq!(state_of(c, "ColourOf(Germany) = Red").await, "impossible");
    assert_eq!(state_of(c, "ColourOf(Belgium) = Green").await, "impossible");
    let said = text_of(c, "#consultant .consult-status").await;
    assert!(
        said.starts_with("ColourOf(Belgium) = Red chosen — 1 choice — 7 values follow"),
        "{said}"
    );

    // Germany green, France blue: Luxembourg must be yellow.
    choose(c, "ColourOf(Germany) = Green").await;
    choose(c, "ColourOf(France) = Blue").await;
    assert_eq!(state_of(c, "ColourOf(Luxembourg) = Yellow").await, "forced");
    // The Netherlands may be blue or yellow, and with its neighbours chosen no sentence
    // cares which: both are open and irrelevant, said so in words.
    assert_eq!(
        state_of(c, "ColourOf(Netherlands) = Blue").await,
        "irrelevant"
    );
    assert_eq!(
        state_of(c, "ColourOf(Netherlands) = Yellow").await,
        "irrelevant"
    );
    let irrelevant = c
        .find(Locator::Css(
            "#consultant button.v[data-literal=\"ColourOf(Netherlands) = Blue\"]",
        ))
        .await
        .unwrap();
    assert_eq!(
        irrelevant.attr("aria-label").await.unwrap().as_deref(),
        Some("ColourOf(Netherlands) = Blue: open, and it does not matter")
    );
    screenshot(c, "consult.png").await;

    // Why yellow: the three choices and the sentence, with its instances; a click on the
    // sentence puts the cursor on its line.
    choose(c, "ColourOf(Luxembourg) = Yellow").await;
    wait_css(c, "#consultant .consult-why .why-head").await;
    assert_eq!(
        text_of(c, "#consultant .consult-why .why-head").await,
        "Why ColourOf(Luxembourg) = Yellow:"
    );
    let mut choices = text_contents(c, "#consultant .reasons li.choice").await;
    choices.sort();
    assert_eq!(
        choices,
        [
            "your choice ColourOf(Belgium) = Red retract",
            "your choice ColourOf(France) = Blue retract",
            "your choice ColourOf(Germany) = Green retract",
        ]
    );
    let mut sentences = text_contents(c, "#consultant .reasons li.sentence").await;
    sentences.sort();
    let sentence = "line 9! x y : Border(x, y) => ColourOf(x) ~= ColourOf(y).here: ";
    assert_eq!(
        sentences,
        [
            format!(
                "{sentence}Border(Belgium,Luxembourg) => ColourOf(Belgium) ~= ColourOf(Luxembourg)"
            ),
            format!(
                "{sentence}Border(Luxembourg,France) => ColourOf(Luxembourg) ~= ColourOf(France)"
            ),
            format!(
                "{sentence}Border(Luxembourg,Germany) => ColourOf(Luxembourg) ~= ColourOf(Germany)"
            ),
        ]
    );
    click(c, "#consultant .reasons li.sentence").await;
    assert_eq!(cursor(c).await, json!([9, 5]));
    screenshot(c, "consult-why.png").await;

    // Why not a red Netherlands: Belgium's red is the choice to retract; retracting it
    // through the why-not makes it possible.
    choose(c, "ColourOf(Netherlands) = Red").await;
    wait_css(c, "#consultant .retract-sets li").await;
    assert_eq!(
        text_contents(c, "#consultant .retract-sets li").await,
        ["retract ColourOf(Belgium) = Red retract"]
    );
    click(c, "#consultant .retract-sets button").await;
    wait_for_js(
        c,
        "return !document.querySelector('#consultant[data-busy]')",
    )
    .await;
    wait_for_js(
        c,
        "return document.getElementById('consultant').dataset.choices === '2'",
    )
    .await;
    assert_eq!(state_of(c, "ColourOf(Netherlands) = Red").await, "open");
    assert_eq!(state_of(c, "ColourOf(Belgium) = Red").await, "open");

    // Undo brings Belgium's red back; redo takes it away; undo again.
    click(c, "#consultant .c-undo").await;
    wait_for_js(
        c,
        "return document.getElementById('consultant').dataset.choices === '3'",
    )
    .await;
    assert_eq!(state_of(c, "ColourOf(Belgium) = Red").await, "chosen");
    click(c, "#consultant .c-redo").await;
    wait_for_js(
        c,
        "return document.getElementById('consultant').dataset.choices === '2'",
    )
    .await;
    assert_eq!(state_of(c, "ColourOf(Belgium) = Red").await, "open");
    click(c, "#consultant .c-undo").await;
    wait_for_js(
        c,
        "return document.getElementById('consultant').dataset.choices === '3'",
    )
    .await;

    // By keyboard: focus a value, Enter chooses it.
    c.execute(
        "document.querySelector('#consultant button.v[data-literal=\"ColourOf(Netherlands) = Blue\"]').focus()",
        vec![],
    )
    .await
    .unwrap();
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down {
            value: char::from(Key::Enter),
        })
        .then(KeyAction::Up {
            value: char::from(Key::Enter),
        });
    c.perform_actions(keys).await.unwrap();
    wait_for_js(
        c,
        "return document.getElementById('consultant').dataset.choices === '4'",
    )
    .await;
    assert_eq!(state_of(c, "ColourOf(Netherlands) = Blue").await, "chosen");
    assert_eq!(
        state_of(c, "ColourOf(Netherlands) = Yellow").await,
        "impossible"
    );
    let before = all_states(c).await;

    // Save choices: a structure block at the end of the text.
    click(c, "#consultant .c-save-choices").await;
    wait_for_js(
        c,
        "return !document.querySelector('#consultant[data-busy]')",
    )
    .await;
    let text: String = c
        .execute("return window.idpEditor.state.doc.toString()", vec![])
        .await
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.ends_with("structure Choices : V {\n    ColourOf<ct> = { Germany->Green; France->Blue; Belgium->Red; Netherlands->Blue }\n}\n"),
        "{text}"
    );

    // The link restores the consultation: the same choices, the same states.
    let url: String = c
        .execute("return location.href", vec![])
        .await
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    assert!(url.contains("#map.idp&consult="), "{url}");
    c.goto("about:blank").await.unwrap();
    c.goto(&url).await.unwrap();
    wait_css(c, "body[data-ready=\"true\"]").await;
    wait_for_js(
        c,
        "return document.getElementById('consultant')?.dataset.choices === '4'",
    )
    .await;
    assert_eq!(all_states(c).await, before);

    // The saved block as the first choices: the same state again.
    set_text(c, &text).await;
    wait_for_js(
        c,
        "return [...document.getElementById('choices').options].some(o => o.value === 'Choices')",
    )
    .await;
    c.execute(
        "document.getElementById('choices').value = 'Choices';\
         document.getElementById('structure').value = 'S';",
        vec![],
    )
    .await
    .unwrap();
    click(c, "#run").await;
    wait_for_js(
        c,
        "return document.getElementById('consultant')?.dataset.choices === '4'",
    )
    .await;
    assert_eq!(all_states(c).await, before);
    screenshot(c, "consult-restored.png").await;
    environment_and_decision(c).await;
    display_block(c).await;
    numbers(c).await;
}

/// Numbers the search chooses (`Int` without a listed type) are fields: a value typed is a
/// choice, what follows shows in the other fields, and an impossible value is refused.
async fn numbers(c: &Client) {
    consult_text(c, NUMBERS_SPEC, "input[data-number=\"weight(b)\"]").await;
    type_number(c, "weight(a)", "3").await;
    type_number(c, "weight(b)", "4").await;
    assert_eq!(
        number_state(c, "total").await,
        ("forced".into(), "= 7".into())
    );
    assert_eq!(
        number_state(c, "weight(a)").await,
        ("chosen".into(), "chosen".into())
    );
    assert_eq!(state_of(c, "heavy(b)").await, "forced");
    // 12 is beyond weight(a)'s bound: refused, and the choice stays 3.
    type_number(c, "weight(a)", "12").await;
    assert!(text_of(c, "#consultant .consult-status")
        .await
        .contains("impossible"));
    assert_eq!(value_of_number(c, "weight(a)").await, "3");
    screenshot(c, "consult-numbers.png").await;
}

/// Puts `spec` in the editor, consults its theory `T`, and waits until what holds without
/// choices is shown and the consultant has an element `field` (CSS).
async fn consult_text(c: &Client, spec: &str, field: &str) {
    set_text(c, spec).await;
    wait_for_js(
        c,
        "return [...document.getElementById('theory').options].some(o => o.value === 'T')",
    )
    .await;
    click(c, "#run").await;
    let ready = format!(
        "return document.querySelector('#consultant .consult-status.good') !== null \
         && document.querySelector('#consultant {}') !== null",
        field.replace('\'', "\\'")
    );
    wait_for_js(c, &ready).await;
}

/// Types `value` into number `applied`'s field, presses Enter, and waits for the answer.
async fn type_number(c: &Client, applied: &str, value: &str) {
    let css = format!("#consultant input[data-number=\"{applied}\"]");
    let field = wait_css(c, &css).await;
    // Erased key by key, as a person does (clearing the field would commit it empty).
    let shown = field.prop("value").await.unwrap().unwrap_or_default();
    let erase = char::from(Key::Backspace)
        .to_string()
        .repeat(shown.chars().count());
    field
        .send_keys(&format!("{erase}{value}{}", char::from(Key::Enter)))
        .await
        .unwrap();
    wait_for_js(
        c,
        "return !document.querySelector('#consultant[data-busy]')",
    )
    .await;
}

/// The state of number `applied` and the text beside its field.
async fn number_state(c: &Client, applied: &str) -> (String, String) {
    let css = format!("#consultant input[data-number=\"{applied}\"] ~ button.num-state");
    let mark = c.find(Locator::Css(&css)).await.unwrap();
    let state = mark.attr("data-state").await.unwrap().unwrap_or_default();
    (state, mark.text().await.unwrap())
}

/// What number `applied`'s field shows.
async fn value_of_number(c: &Client, applied: &str) -> String {
    let css = format!("#consultant input[data-number=\"{applied}\"]");
    let field = c.find(Locator::Css(&css)).await.unwrap();
    field.prop("value").await.unwrap().unwrap_or_default()
}

/// An IDP-Z3 file with a display block: its introduction is shown, the hidden symbol is
/// left out and named, the headed symbols are grouped under their heading with their unit,
/// the goal symbol is marked.
async fn display_block(c: &Client) {
    consult_text(c, DISPLAY_SPEC, "button.v[data-literal=\"side = 2\"]").await;
    assert_eq!(
        text_of(c, "#consultant .consult-introduction").await,
        "The area of a square"
    );
    let notes = text_contents(c, "#consultant .consult-notes p.note").await;
    assert_eq!(notes, ["hidden by the display block: metric"]);
    assert!(c
        .find(Locator::Css("#consultant fieldset[data-symbol=\"metric\"]"))
        .await
        .is_err());
    assert_eq!(
        text_contents(c, "#consultant .consult-heading h3").await,
        ["Dimensions"]
    );
    assert_eq!(
        text_contents(c, "#consultant .consult-heading legend").await,
        ["side : Len (cm)"]
    );
    assert_eq!(
        text_contents(c, "#consultant fieldset.goal legend").await,
        ["area : Area goal"]
    );
    choose(c, "side = 2").await;
    assert_eq!(state_of(c, "area = 4").await, "forced");
    screenshot(c, "consult-display.png").await;
}

/// An IDP-Z3 file with environment and decision theories: consulted together ("environment +
/// decision" chosen in consult mode), what the environment theory alone makes certain is
/// marked apart from what the decisions add.
async fn environment_and_decision(c: &Client) {
    set_text(c, ENVIRONMENT_SPEC).await;
    wait_for_js(
        c,
        "return [...document.getElementById('theory').options].some(o => o.value === '')",
    )
    .await;
    assert_eq!(value_of(c, "theory").await, "");
    click(c, "#run").await;
    wait_for_js(
        c,
        "return document.querySelector('#consultant .consult-status.good') !== null \
         && document.querySelector('#consultant button.v[data-literal=\"raining\"]') !== null",
    )
    .await;
    choose(c, "raining").await;
    assert_eq!(state_of(c, "raining").await, "chosen");
    assert_eq!(state_of(c, "cold").await, "environment");
    assert_eq!(state_of(c, "wear = coat").await, "forced");
    let legend = text_of(c, "#consultant .consult-legend").await;
    assert!(legend.contains("follows from the environment"), "{legend}");
}

/// Runs `test` with a WebDriver session of chromium (through chromedriver), its profile and
/// download folders its own (named after `name`) and removed after.
fn in_chromium<Test: std::future::Future<Output = ()>>(
    chromium: &Path,
    chromedriver: &Path,
    name: &str,
    test: impl FnOnce(Client, PathBuf) -> Test,
) {
    let driver = Driver::start(chromedriver);
    let profile = scratch_dir(&format!("{name}-profile"));
    let downloads = scratch_dir(&format!("{name}-downloads"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let client = connect(chromium, &profile, &downloads, driver.port).await;
        test(client.clone(), downloads.clone()).await;
        let _ = client.close().await;
    });
    let _ = std::fs::remove_dir_all(&profile);
    let _ = std::fs::remove_dir_all(&downloads);
}

/// How long the pages of the load test may take for all their answers: generous, for a small
/// machine that runs twenty pages, their runs and the browser at once.
const LOAD_WAIT: Duration = Duration::from_secs(300);

/// What one page of the load test runs, and what it must show.
#[derive(Clone, Copy, Debug)]
enum Load {
    /// `main` of the n-queens example with this many rows: the text the command line prints.
    Queens(usize),
    /// All colourings of the graph-colouring example with this many colours, as model tables:
    /// as many as the command line counts.
    Colourings(usize),
    /// `main` of the maze spec: the maze's table and picture.
    Maze,
    /// Model expansion of a triangle with two colours: no model, and why.
    Triangle,
}

impl Load {
    /// Page `i`'s run: four kinds in turn, and answers that differ from page to page.
    fn of_page(i: usize) -> Load {
        match i % 4 {
            0 => Load::Queens(7 + i / 4),
            1 => Load::Colourings(2 + (i / 4) % 3),
            2 => Load::Maze,
            _ => Load::Triangle,
        }
    }

    fn text(self) -> String {
        let example = |path: &str| std::fs::read_to_string(crate_dir().join(path)).unwrap();
        let replaced = |text: String, from: &str, to: &str| {
            assert!(text.contains(from), "no {from:?} to replace");
            text.replace(from, to)
        };
        match self {
            Load::Queens(n) => {
                let text = example("examples/nqueens.idp");
                let text = replaced(text, "Index = { 1..6 }", &format!("Index = {{ 1..{n} }}"));
                replaced(text, "for 6 queens", &format!("for {n} queens"))
            }
            Load::Colourings(k) => {
                let colours = ["red", "green", "blue", "yellow"][..k].join("; ");
                replaced(
                    example("examples/graph-colouring.idp"),
                    "Colour = { red; green; blue }",
                    &format!("Colour = {{ {colours} }}"),
                )
            }
            Load::Maze => example("specs/maze/construction.idp"),
            Load::Triangle => TRIANGLE_SPEC.to_string(),
        }
    }

    /// Model expansion of theory T in structure S for all models (rather than `main`).
    fn expands(self) -> bool {
        matches!(self, Load::Colourings(_) | Load::Triangle)
    }
}

/// A load test: twenty pages (windows of one headless chromium) each open a spec of their own
/// and run it at once; every page's answer, read from the page, is the command line's.
#[test]
fn twenty_pages_at_once() {
    let Some((chromium, chromedriver)) = browser("twenty_pages_at_once") else {
        return;
    };
    let _turn = ONE_BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir("load-pages");
    let pages: Vec<Load> = (0..20).map(Load::of_page).collect();
    // What the command line answers for each page's spec.
    let mut expected = Vec::new();
    for (i, load) in pages.iter().enumerate() {
        let file = format!("page-{i}.idp");
        std::fs::write(dir.join(&file), load.text()).unwrap();
        let answer = match load {
            Load::Queens(_) => {
                let (code, out, err) = support::serve::idp(&dir, &[&file]);
                assert_eq!(code, 0, "{err}");
                out
            }
            Load::Colourings(_) => {
                let (code, out, err) = support::serve::idp(&dir, &["-n", "0", &file]);
                assert_eq!(code, 10, "{err}");
                out.lines()
                    .find_map(|l| l.strip_prefix("Number of models: "))
                    .unwrap_or_else(|| panic!("no count in {out}"))
                    .to_string()
            }
            Load::Maze | Load::Triangle => String::new(),
        };
        expected.push(answer);
    }
    // Every run goes on at once (the server would otherwise let two of them run on two cores).
    let server = Server::start(&dir, &["--max-runs", "20"]);
    let (server, pages, expected) = (&server, &pages, &expected);
    in_chromium(&chromium, &chromedriver, "load", |c, _| async move {
        load(&c, server, pages, expected).await
    });
    let (_, health) = server.get("/api/health");
    assert_eq!(health["running"], 0, "{health}");
    let _ = std::fs::remove_dir_all(&dir);
}

async fn load(c: &Client, server: &Server, pages: &[Load], expected: &[String]) {
    // Open every page, each in a window of its own, with its file.
    let mut windows = vec![c.window().await.unwrap()];
    for _ in 1..pages.len() {
        windows.push(c.new_window(false).await.unwrap().handle);
    }
    for (i, (load, window)) in pages.iter().zip(&windows).enumerate() {
        c.switch_to_window(window.clone()).await.unwrap();
        c.goto(&format!("{}#page-{i}.idp", server.url))
            .await
            .unwrap();
        wait_css(c, "body[data-ready=\"true\"]").await;
        wait_css(c, "#check-status.good").await;
        assert_eq!(value_of(c, "file").await, format!("page-{i}.idp"));
        if load.expands() {
            wait_for_js(c, "return document.getElementById('theory').value === 'T'").await;
            c.execute(
                "const m = document.getElementById('mode'); m.value = 'expand';\
                 m.dispatchEvent(new Event('change'));\
                 document.getElementById('models').value = '0';",
                vec![],
            )
            .await
            .unwrap();
        } else {
            assert_eq!(value_of(c, "mode").await, "main");
        }
    }
    // Every page presses Run at the same moment: each listens on one broadcast channel, and
    // the last page, once all are listening, says go (a channel does not echo to its sender).
    for window in &windows {
        c.switch_to_window(window.clone()).await.unwrap();
        c.execute(
            "new BroadcastChannel('load-test').onmessage = \
             () => document.getElementById('run').click();",
            vec![],
        )
        .await
        .unwrap();
    }
    c.execute(
        "new BroadcastChannel('load-test').postMessage('go');\
         document.getElementById('run').click();",
        vec![],
    )
    .await
    .unwrap();
    // The runs go on at the same time: the most the server has seen at once, until all twenty
    // have ended.
    let start = Instant::now();
    let mut most = 0;
    loop {
        // A machine short of memory or processors may not answer at once: asked again.
        let Some(health) = health(server) else {
            assert!(start.elapsed() < LOAD_WAIT, "the server never answers");
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let running = health["running"].as_u64().unwrap_or(0);
        most = most.max(running);
        let all = health["runs"].as_u64().unwrap_or(0) >= pages.len() as u64;
        if (all && running == 0) || start.elapsed() > LOAD_WAIT {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Each page's answer, read from the page.
    for (i, ((load, window), expected)) in pages.iter().zip(&windows).zip(expected).enumerate() {
        c.switch_to_window(window.clone()).await.unwrap();
        let left = LOAD_WAIT.saturating_sub(start.elapsed());
        let status = wait_css_for(c, "#status.good, #status.bad", left).await;
        let said = status.text().await.unwrap();
        let page = format!("page {i} ({load:?}): {said}");
        match load {
            Load::Queens(_) => {
                assert!(said.starts_with("finished in "), "{page}");
                let text = text_contents(c, "#results pre.text").await.concat();
                assert_eq!(&text, expected, "{page}");
            }
            Load::Colourings(_) => {
                assert!(
                    said.starts_with("models found (exit code 10) in "),
                    "{page}"
                );
                assert!(said.ends_with(&format!(" s — {expected} models")), "{page}");
                let tables = c.find_all(Locator::Css("section.model")).await.unwrap();
                assert_eq!(tables.len().to_string(), *expected, "{page}");
            }
            Load::Maze => {
                assert!(said.starts_with("finished in "), "{page}");
                let walls = c
                    .find_all(Locator::Css("table[data-symbol=\"Wall\"] tbody tr"))
                    .await
                    .unwrap();
                assert_eq!(walls.len(), 16, "{page}");
                let wall_cells = c
                    .find_all(Locator::Css(
                        "figure.picture svg rect.cell[data-layers=\"Wall\"]",
                    ))
                    .await
                    .unwrap();
                assert_eq!(wall_cells.len(), 16, "{page}");
            }
            Load::Triangle => {
                assert!(said.starts_with("no model (exit code 20) in "), "{page}");
                let head = text_of(c, ".why .why-head").await;
                assert_eq!(
                    head,
                    "Why: 1 part of the theory and 3 facts of the structure have no model \
                     together; without any one of them there is one.",
                    "{page}"
                );
            }
        }
    }
    // The server counts the most children at once itself; a poll may fall between runs.
    let (_, health) = server.get("/api/health");
    let most = most.max(health["most_running"].as_u64().unwrap_or(0));
    let seconds = start.elapsed().as_secs_f64();
    eprintln!(
        "twenty_pages_at_once: every answer in {seconds:.1} s after Run; at most {most} runs at once"
    );
    assert!(
        most > 1,
        "the runs never went on at the same time: {health}"
    );
}

/// The server's health, or `None` when it does not answer within a few seconds.
fn health(server: &Server) -> Option<Value> {
    use std::io::Read;
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let request = format!(
        "GET /api/health HTTP/1.0\r\nHost: 127.0.0.1:{}\r\nX-Idp-Token: {}\r\n\
         X-Idp-Page: load-test\r\n\r\n",
        server.port, server.token
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    serde_json::from_str(response.split_once("\r\n\r\n")?.1).ok()
}

/// A WebDriver session with chromium, its profile in `profile` and its downloads saved to
/// `downloads` without asking.
async fn connect(chromium: &Path, profile: &Path, downloads: &Path, port: u16) -> Client {
    let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    args.push("--window-size=1400,950".into());
    let caps = json!({
        "goog:chromeOptions": {
            "binary": chromium.display().to_string(),
            "args": args,
            "prefs": {
                "download.default_directory": downloads.display().to_string(),
                "download.prompt_for_download": false,
            },
        }
    });
    let Value::Object(caps) = caps else {
        unreachable!("a JSON object")
    };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a WebDriver session with chromium")
}

async fn scenario(c: &Client, server: &Server, dir: &Path, downloads: &Path) {
    // Open the page with the maze spec (the file given on the command line).
    c.goto(&server.url).await.unwrap();
    wait_css(c, "body[data-ready=\"true\"]").await;
    let status = wait_css(c, "#check-status.good").await;
    assert_eq!(status.text().await.unwrap(), "no problems");
    assert_eq!(
        c.execute("return document.getElementById('file').value", vec![])
            .await
            .unwrap(),
        json!("maze.idp")
    );

    // A typo, typed: `~inside(p)` becomes `~insidex(p)`.
    let at: u64 = c
        .execute(
            "const v = window.idpEditor; const t = v.state.doc.toString();\
             const i = t.indexOf('~inside(p). }') + '~inside'.length;\
             v.dispatch({ selection: { anchor: i },\
             effects: v.constructor.scrollIntoView(i, { y: 'center' }) });\
             v.focus(); return i;",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        .unwrap();
    assert!(at > 100);
    let content = c.find(Locator::Css(".cm-content")).await.unwrap();
    content.send_keys("x").await.unwrap();
    let item = wait_css(c, "#diagnostics li.error[data-code=\"unknown-symbol\"]").await;
    let text = item.text().await.unwrap();
    assert!(
        text.contains("[unknown-symbol]") && text.contains("insidex"),
        "{text}"
    );
    assert!(text.contains("hint: "), "{text}");
    let underlined = wait_css(c, ".cm-lintRange-error").await;
    assert_eq!(underlined.text().await.unwrap(), "insidex");
    screenshot(c, "serve-diagnostic.png").await;

    // Fixed with Backspace: the error goes away.
    content
        .send_keys(&char::from(Key::Backspace).to_string())
        .await
        .unwrap();
    wait_css(c, "#check-status.good").await;
    wait_gone(c, "#diagnostics li.error").await;

    // Run main: the model table and the maze picture.
    assert_eq!(value_of(c, "mode").await, "main");
    c.find(Locator::Css("#run"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let status = wait_css(c, "#status.good").await;
    assert!(status.text().await.unwrap().starts_with("finished in "));
    let walls = c
        .find_all(Locator::Css("table[data-symbol=\"Wall\"] tbody tr"))
        .await
        .unwrap();
    assert_eq!(walls.len(), 16);
    assert_eq!(walls[0].text().await.unwrap(), "P(0,0)");
    let entrance = c
        .find(Locator::Css("table[data-symbol=\"Entrance\"] td"))
        .await
        .unwrap();
    assert_eq!(entrance.text().await.unwrap(), "P(1,0)");
    let wall_cells = c
        .find_all(Locator::Css(
            "figure.picture svg rect.cell[data-layers=\"Wall\"]",
        ))
        .await
        .unwrap();
    assert_eq!(wall_cells.len(), 16);
    // The picture heads the model's section, above its tables.
    let in_model = c
        .find_all(Locator::Css("section.model > figure.picture + .symbols"))
        .await
        .unwrap();
    assert_eq!(in_model.len(), 1);
    screenshot(c, "serve.png").await;

    frames(c, server).await;
    stop(c).await;
    drafts(c, server, dir).await;
    download(
        c,
        downloads,
        "copy.idp",
        &format!("{FRAMES_SPEC}// kept as a draft"),
    )
    .await;
    why_not(c).await;
    error_link(c, downloads).await;
    no_model_in_main(c).await;
    level(c, server).await;
    other_page(c, server).await;
}

/// Copies the files of `from` (and its folders) to `to`.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("a folder to copy").flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_folder(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("a copy");
        }
    }
}

/// Opens `path` of the folder served in the page.
async fn open(c: &Client, server: &Server, path: &str) {
    c.goto(&format!("{}#{path}", server.url)).await.unwrap();
    c.refresh().await.unwrap();
    wait_css(c, "body[data-ready=\"true\"]").await;
}

/// The cursor's line and column in the editor.
async fn cursor(c: &Client) -> Value {
    c.execute(
        "const v = window.idpEditor; const h = v.state.selection.main.head;\
         const l = v.state.doc.lineAt(h); return [l.number, h - l.from + 1];",
        vec![],
    )
    .await
    .unwrap()
}

/// Replaces the editor's text by `text`.
async fn set_text(c: &Client, text: &str) {
    c.execute(
        "const v = window.idpEditor;\
         v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: arguments[0] } });",
        vec![json!(text)],
    )
    .await
    .unwrap();
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// In a new buffer, a run error names its line as a link: a click puts the cursor there and
/// the line is marked.
async fn error_link(c: &Client, downloads: &Path) {
    // A new buffer: the mode follows the text until chosen by hand, so `main` runs.
    click(c, "#new").await;
    let template = c
        .execute("return window.idpEditor.state.doc.toString()", vec![])
        .await
        .unwrap();
    assert!(template.as_str().unwrap().starts_with("vocabulary V {"));
    wait_for_js(
        c,
        "return document.getElementById('mode').value === 'expand'",
    )
    .await;
    set_text(c, FAILING_SPEC).await;
    wait_for_js(c, "return document.getElementById('mode').value === 'main'").await;
    let save = c.find(Locator::Css("#save")).await.unwrap();
    assert!(
        !save.is_enabled().await.unwrap(),
        "an untitled buffer is saved with Save as"
    );
    // Or downloaded, as untitled.idp.
    download(c, downloads, "untitled.idp", FAILING_SPEC).await;
    click(c, "#run").await;
    wait_css(c, "#status.bad").await;
    let stderr = wait_css(c, "pre.stderr").await;
    assert_eq!(
        stderr.text().await.unwrap(),
        "Error: line 6: attempt to index local 'x' (a nil value)"
    );
    let link = wait_css(c, "pre.stderr a.line-link").await;
    assert_eq!(link.text().await.unwrap(), "line 6");
    link.click().await.unwrap();
    assert_eq!(cursor(c).await, json!([6, 1]));
    let marked = wait_css(c, ".cm-lintRange-error").await;
    assert_eq!(marked.text().await.unwrap(), "print(x.field)");
    // The long line wraps inside the panel.
    let wraps = c
        .execute(
            "return getComputedStyle(document.querySelector('pre.stderr')).whiteSpace",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(wraps, json!("pre-wrap"));
    screenshot(c, "serve-error-link.png").await;
}

/// `main()` finds no model: the status says so (not in green), the message's command line is
/// left out, and its Why button runs the explanation on the page.
async fn no_model_in_main(c: &Client) {
    let spec =
        format!("{TRIANGLE_SPEC}procedure main() {{\n  printmodels(modelexpand(T, S))\n}}\n");
    set_text(c, &spec).await;
    wait_for_js(c, "return document.getElementById('mode').value === 'main'").await;
    click(c, "#run").await;
    let status = wait_css(c, "#status.none").await;
    let text = status.text().await.unwrap();
    assert!(
        text.starts_with("finished in ") && text.ends_with(" — no model"),
        "{text}"
    );
    let stderr = wait_css(c, "pre.stderr").await.text().await.unwrap();
    assert!(
        stderr.contains("theory T has no model with structure S"),
        "{stderr}"
    );
    assert!(!stderr.contains("idp --explain"), "{stderr}");
    let why = wait_css(c, "#why-run").await;
    assert_eq!(why.text().await.unwrap(), "Why has T no model in S?");
    why.click().await.unwrap();
    let head = wait_css(c, ".why .why-head").await;
    assert_eq!(
        head.text().await.unwrap(),
        "Why: 1 part of the theory and 3 facts of the structure have no model together; \
         without any one of them there is one."
    );
    assert_eq!(value_of(c, "mode").await, "main");
}

/// The Theseus spec's level reader works from the page, with an expression for `-e`.
async fn level(c: &Client, server: &Server) {
    open(c, server, "theseus/theseus.idp").await;
    wait_css(c, "#check-status.good").await;
    let expr = c.find(Locator::Css("#expr")).await.unwrap();
    expr.send_keys("solve(\"levels/th01_4x4_rand.lp\")")
        .await
        .unwrap();
    // Ctrl-Enter runs, with the focus in the expression field.
    press_ctrl(c, char::from(Key::Enter)).await;
    let status = wait_css(c, "#status.good").await;
    assert!(status.text().await.unwrap().starts_with("finished in "));
    let out = text_of(c, "#results pre.text").await;
    assert!(out.starts_with("at(3,1,0) at(2,1,1) at(1,1,2)"), "{out}");
    assert!(c
        .find_all(Locator::Css("pre.stderr"))
        .await
        .unwrap()
        .is_empty());
    // The expression is kept with the file, as its draft is.
    c.refresh().await.unwrap();
    wait_css(c, "body[data-ready=\"true\"]").await;
    assert_eq!(
        value_of(c, "expr").await,
        "solve(\"levels/th01_4x4_rand.lp\")"
    );
    // A level is not an .idp file: the page does not save it.
    open(c, server, "theseus/levels/th01_4x4_rand.lp").await;
    let save = c.find(Locator::Css("#save")).await.unwrap();
    assert!(!save.is_enabled().await.unwrap());
}

/// Another page (a second tab) can neither read nor stop this page's run; closing this page
/// ends it.
async fn other_page(c: &Client, server: &Server) {
    open(c, server, "frames.idp").await;
    set_text(c, ENDLESS_SPEC).await;
    wait_for_js(c, "return document.getElementById('mode').value === 'main'").await;
    click(c, "#run").await;
    wait_for_js(
        c,
        "return window.idpPage.run !== null && window.idpPage.run.id !== undefined",
    )
    .await;
    let id = c
        .execute("return window.idpPage.run.id", vec![])
        .await
        .unwrap();
    let id = id.as_str().unwrap().to_string();
    let first = c.window().await.unwrap();
    let second = c.new_window(true).await.unwrap().handle;
    c.switch_to_window(second.clone()).await.unwrap();
    c.goto(&server.url).await.unwrap();
    wait_css(c, "body[data-ready=\"true\"]").await;
    let answers = c
        .execute(
            "const id = arguments[0]; const tell = (p) => p.then(() => 'answered', (e) => e.message);\
             return Promise.all([tell(idpApi('GET', `/api/runs/${id}`)),\
                                 tell(idpApi('POST', `/api/runs/${id}/stop`, {}))]);",
            vec![json!(id)],
        )
        .await
        .unwrap();
    let missing = format!("there is no run {id}");
    assert_eq!(answers, json!([missing, missing]));
    let (_, health) = server.get("/api/health");
    assert_eq!(health["running"], 1, "{health}");
    c.switch_to_window(first).await.unwrap();
    c.close_window().await.unwrap();
    c.switch_to_window(second).await.unwrap();
    let start = Instant::now();
    loop {
        let (_, health) = server.get("/api/health");
        if health["running"] == 0 {
            break;
        }
        assert!(
            start.elapsed() < WAIT,
            "the closed page's run goes on: {health}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A run with one frame per time point: the slider moves between them.
async fn frames(c: &Client, server: &Server) {
    c.goto(&format!("{}#frames.idp", server.url)).await.unwrap();
    c.refresh().await.unwrap();
    wait_css(c, "body[data-ready=\"true\"]").await;
    wait_css(c, "#check-status.good").await;
    c.find(Locator::Css("#run"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_css(c, "#status.good").await;
    let figure = wait_css(c, "figure.picture[data-frames=\"4\"]").await;
    let slider = figure
        .find(Locator::Css("input.frame-slider"))
        .await
        .unwrap();
    assert_eq!(slider.attr("max").await.unwrap().as_deref(), Some("3"));
    let label = figure.find(Locator::Css(".frame-label")).await.unwrap();
    assert_eq!(label.text().await.unwrap(), "frame 1 of 4");
    slider.click().await.unwrap();
    let right = char::from(Key::Right).to_string();
    let left = char::from(Key::Left).to_string();
    // A click lands in the middle of the track; go to the first frame, then two to the right.
    for _ in 0..4 {
        slider.send_keys(&left).await.unwrap();
    }
    slider.send_keys(&right).await.unwrap();
    slider.send_keys(&right).await.unwrap();
    assert_eq!(label.text().await.unwrap(), "frame 3 of 4");
    let shown = figure.find(Locator::Css(".svg")).await.unwrap();
    assert_eq!(
        shown.attr("data-frame").await.unwrap().as_deref(),
        Some("2")
    );
    screenshot(c, "serve-frames.png").await;
}

/// A late Stop during an enumeration without end: the models found so far are kept, 300 as
/// tables and the others counted, with no blank box after them.
async fn stop(c: &Client) {
    expand(c, MANY_SPEC, "Th", 0).await;
    let progress = wait_css(c, "#progress.running").await;
    let line = progress.text().await.unwrap();
    assert!(
        line.starts_with("started") || line.starts_with("running"),
        "{line}"
    );
    tokio::time::sleep(Duration::from_secs(5)).await;
    click(c, "#stop").await;
    let status = wait_css(c, "#status.bad").await;
    let said = status.text().await.unwrap();
    assert!(
        said.starts_with("stopped by Stop (exit code 3) in "),
        "{said}"
    );
    let stderr = text_of(c, "pre.stderr").await;
    let kept: usize = stderr
        .split("Stopped: Stop was pressed after ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no kept models in {stderr}"));
    assert!(kept > 300, "{kept}");
    // The count heads the results, after the outcome.
    assert!(said.ends_with(&format!(" s — {kept} models")), "{said}");
    let first = c.find(Locator::Css("section.model h3")).await.unwrap();
    assert_eq!(first.text().await.unwrap(), "Model 1 : V");
    let tables = c.find_all(Locator::Css("section.model")).await.unwrap();
    assert_eq!(tables.len(), 300);
    let texts = text_contents(c, "#results pre.text").await;
    assert_eq!(
        texts,
        [format!(
            "\nNumber of models: {kept}\n({} more models are not shown as tables; 300 are)\n",
            kept - 300
        )]
    );
}

/// An edit survives a reload (a draft in the browser); Ctrl-S saves it with the focus outside
/// the editor, and the unsaved mark goes.
async fn drafts(c: &Client, server: &Server, dir: &Path) {
    // The runs before left their texts as a draft of frames.idp: back to the file's text.
    open(c, server, "frames.idp").await;
    set_text(c, FRAMES_SPEC).await;
    wait_for_js(
        c,
        "return document.getElementById('dirty').textContent === ''",
    )
    .await;
    c.execute(
        "const v = window.idpEditor; v.dispatch({ selection: { anchor: v.state.doc.length } }); v.focus();",
        vec![],
    )
    .await
    .unwrap();
    let content = c.find(Locator::Css(".cm-content")).await.unwrap();
    content.send_keys("// kept as a draft").await.unwrap();
    assert_eq!(value_of_text(c, "dirty").await, "●");
    tokio::time::sleep(Duration::from_millis(600)).await;
    c.refresh().await.unwrap();
    wait_css(c, "body[data-ready=\"true\"]").await;
    let restored = wait_css(c, "#save-status.draft").await;
    assert_eq!(
        restored.text().await.unwrap(),
        "your unsaved draft (kept by this browser)"
    );
    let text = c
        .execute("return window.idpEditor.state.doc.toString()", vec![])
        .await
        .unwrap();
    assert_eq!(text, json!(format!("{FRAMES_SPEC}// kept as a draft")));
    assert_eq!(value_of_text(c, "dirty").await, "●");
    assert_eq!(
        std::fs::read_to_string(dir.join("frames.idp")).unwrap(),
        FRAMES_SPEC
    );
    // Ctrl-S with the focus on the page, not in the editor.
    click(c, "#folder").await;
    let focused = c
        .execute("return document.activeElement === document.body", vec![])
        .await
        .unwrap();
    assert_eq!(focused, json!(true));
    press_ctrl(c, 's').await;
    let saved = wait_css(c, "#save-status.good").await;
    assert!(saved
        .text()
        .await
        .unwrap()
        .starts_with("saved frames.idp ("));
    assert_eq!(value_of_text(c, "dirty").await, "");
    let on_disk = std::fs::read_to_string(dir.join("frames.idp")).unwrap();
    assert_eq!(on_disk, format!("{FRAMES_SPEC}// kept as a draft"));
    let draft = c
        .execute(
            "return Object.keys(localStorage).filter(k => k.startsWith('idp-draft:')).length",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(draft, json!(0));
    // Save as writes a new .idp file (and never an existing one), which the page then edits.
    click(c, "#save-as").await;
    assert_eq!(
        c.get_alert_text().await.unwrap(),
        "Save as a new .idp file (a path inside the server's folder):"
    );
    c.send_alert_text("copy").await.unwrap();
    c.accept_alert().await.unwrap();
    let saved = wait_css(c, "#save-status.good").await;
    assert!(saved.text().await.unwrap().starts_with("saved copy.idp ("));
    assert_eq!(value_of(c, "file").await, "copy.idp");
    assert_eq!(
        std::fs::read_to_string(dir.join("copy.idp")).unwrap(),
        format!("{FRAMES_SPEC}// kept as a draft")
    );
    click(c, "#save-as").await;
    c.send_alert_text("frames.idp").await.unwrap();
    c.accept_alert().await.unwrap();
    let refused = wait_css(c, "#save-status.bad").await;
    assert_eq!(
        refused.text().await.unwrap(),
        "not saved: frames.idp exists already; choose another name"
    );
}

/// Download saves the editor's text (edits included) as the file `name`, in the browser's
/// download folder.
async fn download(c: &Client, downloads: &Path, name: &str, text: &str) {
    let file = downloads.join(name);
    let _ = std::fs::remove_file(&file);
    click(c, "#download").await;
    let start = Instant::now();
    loop {
        // Chromium writes `name.crdownload` and renames it when the download is complete; on
        // a loaded machine the file may be seen empty a moment before its text is there.
        let got = std::fs::read_to_string(&file).unwrap_or_default();
        if !got.is_empty() || start.elapsed() >= WAIT {
            assert_eq!(got, text, "the downloaded {name}");
            break;
        }
        assert!(
            start.elapsed() < WAIT,
            "no {name} downloaded to {} within {WAIT:?}: {:?}",
            downloads.display(),
            std::fs::read_dir(downloads)
                .map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>())
                .unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Presses Ctrl and `key` (a character, or a WebDriver key code such as Enter's U+E007).
async fn press_ctrl(c: &Client, key: char) {
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down {
            value: char::from(Key::Control),
        })
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key })
        .then(KeyAction::Up {
            value: char::from(Key::Control),
        });
    c.perform_actions(keys).await.unwrap();
}

/// The text of the first element matching `css`, as WebDriver reads it.
async fn text_of(c: &Client, css: &str) -> String {
    let found = c.find(Locator::Css(css)).await.unwrap();
    found.text().await.unwrap()
}

/// The text of every element matching `css`, as the DOM has it (spaces kept).
async fn text_contents(c: &Client, css: &str) -> Vec<String> {
    c.execute(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)",
        vec![json!(css)],
    )
    .await
    .unwrap()
    .as_array()
    .unwrap()
    .iter()
    .map(|v| v.as_str().unwrap().to_string())
    .collect()
}

async fn value_of_text(c: &Client, id: &str) -> String {
    property(c, id, "textContent").await
}

/// A triangle with two colours has no model: the run says why, each part clickable, and the
/// editor marks the sentence and the structure line it names.
async fn why_not(c: &Client) {
    expand(c, TRIANGLE_SPEC, "T", 1).await;
    let head = wait_css(c, ".why .why-head").await;
    assert_eq!(
        head.text().await.unwrap(),
        "Why: 1 part of the theory and 3 facts of the structure have no model together; \
         without any one of them there is one."
    );
    let parts = c.find_all(Locator::Css(".why li.located")).await.unwrap();
    assert_eq!(parts.len(), 2);
    let first = parts[0].text().await.unwrap();
    assert!(
        first.starts_with("8:3") && first.contains("! x y : Edge(x, y) => Col(x) ~= Col(y)."),
        "{first}"
    );
    assert!(
        first.contains("Edge(a,b) => Col(a) ~= Col(b)   (x=a, y=b)"),
        "{first}"
    );
    // What the function gives is a line of its own, not an instance of the part above it.
    let given = text_contents(c, ".why li.given").await;
    assert_eq!(
        given,
        ["given: Col is a function: each Node has exactly one value of Colour = {green; red}"]
    );
    assert!(!parts[1].text().await.unwrap().contains("given"));
    // Both parts are marked in the editor, from their positions to the end of their lines.
    wait_css(c, ".cm-lintRange-info").await;
    let marked = text_contents(c, ".cm-lintRange-info").await;
    assert_eq!(
        marked,
        [
            "! x y : Edge(x, y) => Col(x) ~= Col(y).",
            "Edge = { a,b; b,c; c,a }"
        ]
    );
    // A click on a part puts the cursor at its position.
    parts[1].click().await.unwrap();
    assert_eq!(cursor(c).await, json!([13, 3]));
    screenshot(c, "serve-why.png").await;
}

/// Replaces the editor's text by `spec` and runs model expansion of its theory `theory` (the
/// only one) for `models` models.
async fn expand(c: &Client, spec: &str, theory: &str, models: usize) {
    set_text(c, spec).await;
    // The check of the new text fills the theory and structure choices.
    let chosen = format!("return document.getElementById('theory').value === '{theory}'");
    wait_for_js(c, &chosen).await;
    c.execute(
        "const m = document.getElementById('mode'); m.value = 'expand';\
         m.dispatchEvent(new Event('change'));\
         document.getElementById('models').value = String(arguments[0]);",
        vec![json!(models)],
    )
    .await
    .unwrap();
    c.find(Locator::Css("#run"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

async fn value_of(c: &Client, id: &str) -> String {
    property(c, id, "value").await
}

/// The property `name` of the element with id `id`, as text.
async fn property(c: &Client, id: &str, name: &str) -> String {
    c.execute(
        "return String(document.getElementById(arguments[0])[arguments[1]] ?? '')",
        vec![json!(id), json!(name)],
    )
    .await
    .unwrap()
    .as_str()
    .unwrap_or("")
    .to_string()
}

/// Waits for an element matching `css`.
async fn wait_css(c: &Client, css: &str) -> Element {
    wait_css_for(c, css, WAIT).await
}

/// Waits at most `limit` for an element matching `css`.
async fn wait_css_for(c: &Client, css: &str, limit: Duration) -> Element {
    match c
        .wait()
        .at_most(limit)
        .every(Duration::from_millis(100))
        .for_element(Locator::Css(css))
        .await
    {
        Ok(e) => e,
        Err(e) => {
            screenshot(c, "serve-failure.png").await;
            panic!("no {css} within {limit:?} ({e}); see target/screenshots/serve-failure.png");
        }
    }
}

/// Waits until no element matches `css`.
async fn wait_gone(c: &Client, css: &str) {
    let start = Instant::now();
    while !c.find_all(Locator::Css(css)).await.unwrap().is_empty() {
        assert!(start.elapsed() < WAIT, "{css} is still there");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the script returns true.
async fn wait_for_js(c: &Client, script: &str) {
    let start = Instant::now();
    while c.execute(script, vec![]).await.unwrap() != json!(true) {
        assert!(start.elapsed() < WAIT, "never true: {script}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Saves a screenshot to `target/screenshots/` (looked at after a failure), or to `docs/` when
/// `IDP_SCREENSHOTS=docs` asks for new pictures for the README.
async fn screenshot(c: &Client, name: &str) {
    let png = c.screenshot().await.expect("a screenshot");
    let dir = match std::env::var("IDP_SCREENSHOTS").as_deref() {
        Ok("docs") => crate_dir().join("docs"),
        _ => crate_dir().join("target/screenshots"),
    };
    std::fs::create_dir_all(&dir).expect("the screenshot folder can be made");
    std::fs::write(dir.join(name), png).expect("the screenshot folder is writable");
}
