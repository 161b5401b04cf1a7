// The playground page: the text goes to the wasm (the CLI's check, explain
// and simulate); this file only shows what comes back. It decides nothing.
import init, { check, explain, simulate, limits } from './pkg/retryplan_playground.js';
import example from './plan.json?raw';

const $ = (id) => document.getElementById(id);
const editor = $('editor');
const profileMenu = $('profile');
const seedInput = $('seed');

/** A whole number from an input, within u32; `undefined` when empty. */
function wholeNumber(input) {
  if (input.value.trim() === '') return undefined;
  return Math.min(Math.max(Math.trunc(Number(input.value)) || 0, 0), 0xffffffff);
}

/** Shows every problem, each at its field. */
function showProblems(problems) {
  const list = $('problems');
  list.replaceChildren(
    ...problems.map(({ field, message }) => {
      const item = document.createElement('li');
      item.dataset.field = field;
      const name = document.createElement('code');
      name.textContent = field || '(file)';
      item.append(name, `: ${message}`);
      return item;
    }),
  );
}

/** Refills the profile menu from the file's profiles, keeping the choice when it still exists. */
function showProfiles(profiles, hasPolicy) {
  const chosen = profileMenu.value;
  const options = [...(hasPolicy ? [''] : []), ...profiles];
  profileMenu.replaceChildren(
    ...options.map((name) => {
      const option = document.createElement('option');
      option.value = name;
      option.textContent = name === '' ? '(policy)' : name;
      return option;
    }),
  );
  profileMenu.value = options.includes(chosen) ? chosen : (options[0] ?? '');
}

/** Dims the charts while the text is invalid: they show its last valid version. */
function stale(yes) {
  $('results-pane').classList.toggle('stale', yes);
  $('stale-note').hidden = !yes;
}

let simulationTimer;
let generation = 0;

function update() {
  generation += 1;
  clearTimeout(simulationTimer);
  const text = editor.value;
  const checked = JSON.parse(check(text));
  if (!checked.ok) {
    const count = checked.problems.length;
    $('status').textContent = `invalid: ${count} ${count === 1 ? 'problem' : 'problems'}`;
    $('status').className = 'bad';
    editor.classList.add('invalid');
    showProblems(checked.problems);
    stale(true);
    document.body.dataset.state = 'invalid';
    return;
  }
  editor.classList.remove('invalid');
  showProfiles(checked.profiles, checked.sections.includes('policy'));
  const profile = profileMenu.value || undefined;
  const explained = JSON.parse(explain(text, profile, wholeNumber($('deadline')), wholeNumber($('first-at'))));
  if (!explained.ok) {
    $('status').textContent = 'invalid';
    $('status').className = 'bad';
    showProblems(explained.problems);
    stale(true);
    document.body.dataset.state = 'invalid';
    return;
  }
  $('status').textContent = `ok (${checked.sections.join(', ')})`;
  $('status').className = 'good';
  showProblems([]);
  stale(false);
  $('timeline').innerHTML = explained.svg;
  $('explain-table').textContent = explained.table;
  $('warnings').replaceChildren(
    ...explained.warnings.map((warning) => {
      const item = document.createElement('li');
      item.textContent = `warning: ${warning}`;
      return item;
    }),
  );
  document.body.dataset.state = 'explained';
  $('sim-status').textContent = 'simulating…';
  // Let the page paint the timeline before the (bounded) simulation runs.
  const mine = generation;
  simulationTimer = setTimeout(() => runSimulation(text, profile, mine), 250);
}

function runSimulation(text, profile, mine) {
  if (mine !== generation) return;
  const seed = wholeNumber(seedInput) ?? 1;
  const started = performance.now();
  const simulated = JSON.parse(simulate(text, profile, seed));
  const elapsed = performance.now() - started;
  if (mine !== generation) return;
  if (!simulated.ok) {
    $('simulation').replaceChildren();
    $('simulate-table').textContent = '';
    $('sim-status').textContent =
      `not simulated: ${simulated.problems.map(({ field, message }) => `${field || '(file)'}: ${message}`).join('; ')}`;
    document.body.dataset.state = 'simulation-refused';
    return;
  }
  $('simulation').innerHTML = simulated.svg;
  $('simulate-table').textContent = simulated.table;
  $('sim-status').textContent =
    `${simulated.variants.length} variants, ${simulated.attempts.toLocaleString('en')} attempts at the dependency, simulated in ${Math.round(elapsed)} ms`;
  $('simulation').dataset.attempts = String(simulated.attempts);
  document.body.dataset.state = 'simulated';
}

await init();
const bounds = JSON.parse(limits());
$('bounds').textContent =
  `Bounded so a run takes about a second in the page: at most ${bounds.max_operations.toLocaleString('en')} operations per variant ` +
  `(arrivals_per_second × duration_ms), ${bounds.max_worst_case_attempts.toLocaleString('en')} attempts if every operation used every attempt, ` +
  `${bounds.max_clients} clients, ${bounds.max_layers} layers and ${bounds.max_text_bytes / 1024} KB of text. ` +
  'So the example is examples/checkout.json scaled down: 500 operations/s for 60 s from 10 clients against 16 workers, ' +
  "a blip at 10 s and a 15 s stall (the CLI's runs 2,000/s for 120 s from 20 clients against 64). retryplan simulate runs any size.";
editor.value = example;
let typing;
editor.addEventListener('input', () => {
  // Pending until the typing pauses: nothing shown is for this text yet.
  document.body.dataset.state = 'typing';
  clearTimeout(typing);
  typing = setTimeout(update, 200);
});
profileMenu.addEventListener('change', update);
for (const input of [seedInput, $('deadline'), $('first-at')]) input.addEventListener('change', update);
$('reset').addEventListener('click', () => {
  editor.value = example;
  update();
});
update();
