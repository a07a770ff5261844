// The Kubernetes manifests under deploy/ against strict schemas of the fields
// they use (deploy/schemas/, written by deploy/schemas/subset.py from the
// operators' published CRDs: SpinKube's SpinApp core.spinkube.dev/v1alpha1,
// wasmCloud runtime-operator chart 2.7.0's WorkloadDeployment and values).
// No cluster ran these manifests; this checks that every field they set
// exists in the CRD with its type and required fields, that a field the CRD
// lacks is refused, and that the files agree with each other (the Service the
// WorkloadDeployment names, the port the hosts serve on).
//
// No YAML package is installed for the tests: a small reader of the block
// YAML these files use (mappings, sequences, plain and quoted scalars,
// comments, `---`), which refuses anything else (flow collections, anchors,
// block scalars, tabs) rather than misread it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (p) => readFileSync(path.join(ROOT, p), 'utf8');
const schema = (name) => JSON.parse(read(`deploy/schemas/${name}.schema.json`));

// ---- a strict reader of block YAML ------------------------------------------
function scalar(text, where) {
  let t = text;
  if (t.startsWith('"') || t.startsWith("'")) {
    const q = t[0];
    const end = t.indexOf(q, 1);
    if (end < 0) throw new Error(`${where}: unterminated quote`);
    const rest = t.slice(end + 1).trim();
    if (rest && !rest.startsWith('#')) throw new Error(`${where}: text after a quoted scalar`);
    const body = t.slice(1, end);
    if (q === '"' && body.includes('\\')) throw new Error(`${where}: escapes are not read here`);
    return body;
  }
  const hash = t.search(/\s#/);
  if (hash >= 0) t = t.slice(0, hash);
  t = t.trim();
  if (/^[[{&*!|>%@`]/.test(t)) throw new Error(`${where}: not read here: ${t}`);
  if (t === '' || t === '~' || t === 'null') return null;
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (/^-?[0-9]+$/.test(t)) return Number(t);
  if (/^-?[0-9]*\.[0-9]+$/.test(t)) return Number(t);
  return t;
}

export function parseYaml(text) {
  const docs = [[]];
  text.split('\n').forEach((raw, n) => {
    if (raw.includes('\t')) throw new Error(`line ${n + 1}: a tab`);
    if (/^---\s*$/.test(raw)) {
      docs.push([]);
      return;
    }
    const body = raw.trimStart();
    if (body === '' || body.startsWith('#')) return;
    docs[docs.length - 1].push({ indent: raw.length - body.length, text: body.trimEnd(), n: n + 1 });
  });
  return docs.filter((lines) => lines.length).map((lines) => {
    const [value, next] = block(lines, 0, lines[0].indent);
    if (next !== lines.length) throw new Error(`line ${lines[next].n}: unexpected indentation`);
    return value;
  });
}

function isItem(line) {
  return line.text === '-' || line.text.startsWith('- ');
}

function block(lines, i, indent) {
  return isItem(lines[i]) ? sequence(lines, i, indent) : mapping(lines, i, indent);
}

function sequence(lines, i, indent) {
  const out = [];
  while (i < lines.length && lines[i].indent === indent && isItem(lines[i])) {
    const rest = lines[i].text.slice(1).trimStart();
    if (rest === '') {
      if (i + 1 >= lines.length || lines[i + 1].indent <= indent) throw new Error(`line ${lines[i].n}: an empty item`);
      const [value, next] = block(lines, i + 1, lines[i + 1].indent);
      out.push(value);
      i = next;
    } else if (/^[A-Za-z0-9_./-]+:(\s|$)/.test(rest) || /^["'][^"']*["']:(\s|$)/.test(rest)) {
      // A mapping as the item: its first key on the dash's line.
      const inner = indent + (lines[i].text.length - rest.length);
      const copy = lines.slice();
      copy[i] = { indent: inner, text: rest, n: lines[i].n };
      const [value, next] = mapping(copy, i, inner);
      out.push(value);
      i = next;
    } else {
      out.push(scalar(rest, `line ${lines[i].n}`));
      i += 1;
    }
  }
  return [out, i];
}

function mapping(lines, i, indent) {
  const out = {};
  while (i < lines.length && lines[i].indent === indent && !isItem(lines[i])) {
    const line = lines[i];
    const m = /^("[^"]*"|'[^']*'|[^\s"'#:][^:#]*?):(?:\s+(.*))?$/.exec(line.text);
    if (!m) throw new Error(`line ${line.n}: not a key: ${line.text}`);
    const key = /^["']/.test(m[1]) ? m[1].slice(1, -1) : m[1];
    if (Object.hasOwn(out, key)) throw new Error(`line ${line.n}: ${key} twice`);
    const rest = m[2] === undefined ? '' : m[2].trim();
    if (rest !== '' && !rest.startsWith('#')) {
      out[key] = scalar(rest, `line ${line.n}`);
      i += 1;
    } else if (i + 1 < lines.length && lines[i + 1].indent > indent) {
      [out[key], i] = block(lines, i + 1, lines[i + 1].indent);
    } else if (i + 1 < lines.length && lines[i + 1].indent === indent && isItem(lines[i + 1])) {
      [out[key], i] = sequence(lines, i + 1, indent);
    } else {
      out[key] = null;
      i += 1;
    }
  }
  return [out, i];
}

// ---- a strict JSON Schema check, of the keywords the schemas use --------------
const KEYWORDS = new Set(['$schema', '$comment', '$defs', '$ref', 'type', 'const', 'enum', 'properties',
  'additionalProperties', 'required', 'items', 'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern',
  'minimum', 'maximum', 'anyOf', 'format', 'x-kubernetes-int-or-string']);

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (Number.isInteger(v)) return 'integer';
  return typeof v;
}

export function validate(value, s, root = s, where = '') {
  const errors = [];
  for (const k of Object.keys(s)) if (!KEYWORDS.has(k)) throw new Error(`schema keyword ${k} at ${where} is not checked here`);
  if (s.$ref) {
    const name = /^#\/\$defs\/(.+)$/.exec(s.$ref)[1];
    return validate(value, root.$defs[name], root, where);
  }
  const t = typeOf(value);
  if (s.type && !(s.type === t || (s.type === 'number' && t === 'integer'))) return [`${where || '.'}: ${t}, not ${s.type}`];
  if ('const' in s && value !== s.const) errors.push(`${where}: ${JSON.stringify(value)}, not ${JSON.stringify(s.const)}`);
  if (s.enum && !s.enum.includes(value)) errors.push(`${where}: ${JSON.stringify(value)} not one of ${s.enum}`);
  if (s.format === 'int32' && t === 'integer' && (value < -(2 ** 31) || value >= 2 ** 31)) errors.push(`${where}: past int32`);
  if (s.anyOf && !s.anyOf.some((alt) => validate(value, alt, root, where).length === 0)) errors.push(`${where}: none of anyOf`);
  if (t === 'string') {
    if (s.pattern && !new RegExp(s.pattern, 'u').test(value)) errors.push(`${where}: ${value} does not match ${s.pattern}`);
    if (s.maxLength !== undefined && value.length > s.maxLength) errors.push(`${where}: longer than ${s.maxLength}`);
    if (s.minLength !== undefined && value.length < s.minLength) errors.push(`${where}: shorter than ${s.minLength}`);
  }
  if (t === 'integer' || t === 'number') {
    if (s.minimum !== undefined && value < s.minimum) errors.push(`${where}: below ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) errors.push(`${where}: above ${s.maximum}`);
  }
  if (t === 'array') {
    if (s.minItems !== undefined && value.length < s.minItems) errors.push(`${where}: fewer than ${s.minItems} items`);
    if (s.maxItems !== undefined && value.length > s.maxItems) errors.push(`${where}: more than ${s.maxItems} items`);
    if (s.items) value.forEach((item, i) => errors.push(...validate(item, s.items, root, `${where}[${i}]`)));
  }
  if (t === 'object') {
    for (const key of s.required ?? []) if (!Object.hasOwn(value, key)) errors.push(`${where}.${key}: required`);
    for (const [key, v] of Object.entries(value)) {
      if (s.properties && Object.hasOwn(s.properties, key)) {
        errors.push(...validate(v, s.properties[key], root, `${where}.${key}`));
      } else if (s.additionalProperties === false) {
        errors.push(`${where}.${key}: not a field of the schema`);
      } else if (typeof s.additionalProperties === 'object') {
        errors.push(...validate(v, s.additionalProperties, root, `${where}.${key}`));
      }
    }
  }
  return errors;
}

// ---- the manifests ----------------------------------------------------------
const spinapp = parseYaml(read('deploy/spinkube/spinapp.yaml'));
const wasmcloud = parseYaml(read('deploy/wasmcloud/workloaddeployment.yaml'));
const values = parseYaml(read('deploy/wasmcloud/values.yaml'));
const byKind = (docs, kind) => {
  const found = docs.filter((d) => d.kind === kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return found[0];
};
const CHECKS = [
  ['deploy/spinkube/spinapp.yaml SpinApp', () => byKind(spinapp, 'SpinApp'), 'spinkube-spinapp',
    ['spec', 'checks', 'liveness', 'httpGet']],
  ['deploy/wasmcloud/workloaddeployment.yaml WorkloadDeployment', () => byKind(wasmcloud, 'WorkloadDeployment'),
    'wasmcloud-workloaddeployment', ['spec', 'template', 'spec', 'hostInterfaces', 0]],
  ['deploy/wasmcloud/workloaddeployment.yaml Service', () => byKind(wasmcloud, 'Service'), 'kubernetes-service',
    ['spec', 'ports', 0]],
  ['deploy/wasmcloud/values.yaml', () => values[0], 'wasmcloud-values', ['runtime', 'hostGroups', 0, 'http']],
];

test('the YAML reader reads what these files use and refuses what it does not read', () => {
  assert.deepEqual(parseYaml('a: 1\nb:\n  - x\n  - y: "2"\n    z: true\nc:\n- 3\n---\nd: \'e\' # f\n'),
    [{ a: 1, b: ['x', { y: '2', z: true }], c: [3] }, { d: 'e' }]);
  for (const bad of ['a: {b: 1}', 'a: [1]', 'a: &x 1', 'a: |\n  x', 'a: 1\na: 2', 'a:\n\tb: 1', 'a: 1\n  b: 2']) {
    assert.throws(() => parseYaml(bad), undefined, bad);
  }
  assert.equal(spinapp.length, 1);
  assert.equal(wasmcloud.length, 2);
  assert.equal(values.length, 1);
});

for (const [what, doc, name, deep] of CHECKS) {
  test(`${what}: every field in the operator's schema (${name})`, () => {
    assert.deepEqual(validate(doc(), schema(name)), []);
  });

  test(`${what}: a field the schema lacks, a wrong type, a missing required field are refused (${name})`, () => {
    const s = schema(name);
    const clone = () => JSON.parse(JSON.stringify(doc()));
    // An unknown field at the top of the document and at its deepest object.
    let d = clone();
    d.replica = 3;
    assert.ok(validate(d, s).some((e) => e.includes('.replica: not a field')), 'top');
    // And deep inside, in an object of named fields.
    d = clone();
    const inner = deep.reduce((v, k) => v[k], d);
    inner.notAField = 'x';
    assert.ok(validate(d, s).some((e) => e.endsWith('.notAField: not a field of the schema')), deep.join('.'));
    // A wrong type.
    d = clone();
    const top = Object.keys(d).find((k) => typeof d[k] === 'object');
    d[top] = 'text';
    assert.ok(validate(d, s).length > 0, 'a string where an object goes');
    // Each required field left out.
    for (const key of s.required ?? []) {
      d = clone();
      delete d[key];
      assert.ok(validate(d, s).some((e) => e.endsWith(`.${key}: required`)), key);
    }
  });

  test(`${what}: the schema names its source and commit (${name})`, () => {
    const comment = schema(name).$comment;
    if (name === 'kubernetes-service') {
      assert.match(comment, /Kubernetes API reference/);
    } else {
      assert.match(comment, /[0-9a-f]{40}/, 'a commit');
      assert.match(comment, name.startsWith('wasmcloud') ? /wasmCloud\/wasmCloud@.*chart 2\.7\.0/ : /spinkube\/spin-operator@/);
    }
  });
}

test('the schemas are strict: every object with named fields refuses others', () => {
  for (const name of ['spinkube-spinapp', 'wasmcloud-workloaddeployment', 'kubernetes-service', 'wasmcloud-values']) {
    (function walk(s, where) {
      if (!s || typeof s !== 'object') return;
      if (s.properties) assert.equal(s.additionalProperties, false, `${name} ${where}`);
      for (const [k, v] of Object.entries(s)) walk(v, `${where}/${k}`);
    })(schema(name), '');
  }
});

test('wasmCloud: routed by a Kubernetes Service on the hosts\' port 9191, not the deprecated gateway\'s config.host', () => {
  const deployment = byKind(wasmcloud, 'WorkloadDeployment');
  const service = byKind(wasmcloud, 'Service');
  const group = values[0].runtime.hostGroups[0];
  assert.equal(deployment.spec.kubernetes.service.name, service.metadata.name);
  assert.equal(service.spec.selector, undefined, 'no selector: the operator\'s EndpointSlice gives the endpoints');
  // The operator's EndpointSlice names its port `http` and gives the host
  // group's http.port (runtime-operator's workload_route_controller.go).
  const port = service.spec.ports.find((p) => p.name === 'http');
  assert.ok(port, 'a port named http');
  assert.equal(group.http.port, 9191, 'the chart\'s default host HTTP port');
  assert.equal(port.targetPort, group.http.port);
  assert.equal(group.http.enabled, true);
  assert.equal(values[0].gateway.enabled, false, 'the deprecated runtime gateway off');
  for (const hi of deployment.spec.template.spec.hostInterfaces) {
    assert.equal(hi.config?.host, undefined, 'no config.host');
  }
  assert.deepEqual(deployment.spec.template.spec.hostSelector, { hostgroup: group.name });
});

test('the manifests still say no cluster ran them', () => {
  for (const file of ['deploy/spinkube/spinapp.yaml', 'deploy/wasmcloud/workloaddeployment.yaml', 'deploy/wasmcloud/values.yaml']) {
    assert.match(read(file), /NOT tried here/, file);
  }
});
