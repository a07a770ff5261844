"""How the schemas beside this file were written: the part of an operator's
published schema that a manifest here uses, strict.

  python3 deploy/schemas/subset.py crd CRD.yaml MANIFEST.yaml KIND SOURCE > OUT.json
  python3 deploy/schemas/subset.py values CHART_VALUES.yaml VALUES.yaml SOURCE > OUT.json

`crd`: from a CustomResourceDefinition's openAPIV3Schema, every property the
manifest's KIND document uses, recursively, with its type, format, pattern,
enum, bounds and `required` as the CRD gives them (descriptions, defaults
and CEL rules left out), and `additionalProperties: false` on every object
with named properties, so that a field the CRD lacks (a misspelling, a field
of another version) fails. It refuses a manifest field the CRD lacks.
`values`: a Helm chart has no schema here (runtime-operator 2.7.0 ships no
values.schema.json), so the chart's own values.yaml is the reference: every
key the deployment's values use must be one of the chart's, with the type of
the chart's default (a list's items typed from its first default item).

SOURCE (e.g. "wasmCloud/wasmCloud@COMMIT charts/.../x.yaml") goes into the
schema's $comment. Needs PyYAML. tests/js/deploy-manifests.test.mjs checks
the manifests against the result; it does not rerun this.
"""
import json
import sys

import yaml

KEEP = ('type', 'format', 'pattern', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength',
        'minItems', 'maxItems', 'x-kubernetes-int-or-string', 'anyOf')


def crd_subset(schema, used, where):
    out = {k: schema[k] for k in KEEP if k in schema}
    if isinstance(used, dict) and 'properties' in schema:
        props = {}
        for key, value in used.items():
            if key not in schema['properties']:
                raise SystemExit(f'{where}.{key}: not in the CRD')
            props[key] = crd_subset(schema['properties'][key], value, f'{where}.{key}')
        out['properties'] = props
        out['additionalProperties'] = False
        if 'required' in schema:
            out['required'] = schema['required']
    elif isinstance(used, dict) and isinstance(schema.get('additionalProperties'), dict):
        out['additionalProperties'] = crd_subset(schema['additionalProperties'], None, where + '.*')
    elif isinstance(used, dict) and schema.get('type') == 'object':
        raise SystemExit(f'{where}: an object of unknown shape in the CRD')
    if isinstance(used, list) and 'items' in schema:
        items = {}
        for item in used:
            if isinstance(item, dict):
                for key, value in item.items():
                    items.setdefault(key, value)
        out['items'] = crd_subset(schema['items'], items or None, where + '[]')
    elif 'items' in schema and used is None:
        out['items'] = crd_subset(schema['items'], None, where + '[]')
    return out


def type_of(value):
    return {bool: 'boolean', int: 'integer', float: 'number', str: 'string', list: 'array', dict: 'object',
            type(None): 'null'}[type(value)]


# Kubernetes ResourceRequirements (a pod's `resources`): quantities by name.
QUANTITIES = {'type': 'object', 'additionalProperties': {
    'anyOf': [{'type': 'integer'}, {'type': 'string'}],
    'pattern': '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$'}}
RESOURCES = {'type': 'object', 'properties': {'requests': QUANTITIES, 'limits': QUANTITIES}, 'additionalProperties': False}


def values_subset(default, used, where):
    if where.endswith('.resources'):
        return RESOURCES
    if isinstance(used, dict):
        if not isinstance(default, dict):
            raise SystemExit(f'{where}: an object here, the chart has {type_of(default)}')
        props = {}
        for key, value in used.items():
            if key not in default:
                raise SystemExit(f'{where}.{key}: not a key of the chart\'s values.yaml')
            props[key] = values_subset(default[key], value, f'{where}.{key}')
        return {'type': 'object', 'properties': props, 'additionalProperties': False}
    if isinstance(used, list):
        if not isinstance(default, list) or not default:
            raise SystemExit(f'{where}: a list here, the chart has no default list to type it by')
        items = {}
        for item in used:
            if isinstance(item, dict):
                for key, value in item.items():
                    items.setdefault(key, value)
        return {'type': 'array', 'items': values_subset(default[0], items, where + '[]')}
    kind = type_of(default)
    if kind == 'object':
        # A map the chart leaves open (resources, a selector): strings or numbers.
        return {'type': 'object'}
    return {'type': kind}


def main():
    mode = sys.argv[1]
    if mode == 'crd':
        crd_path, manifest_path, kind, source = sys.argv[2:6]
        crd = yaml.safe_load(open(crd_path))
        version = crd['spec']['versions'][0]
        doc = next(d for d in yaml.safe_load_all(open(manifest_path)) if d and d.get('kind') == kind)
        root = version['schema']['openAPIV3Schema']
        spec = crd_subset(root['properties']['spec'], doc['spec'], 'spec')
        schema = {
            '$schema': 'https://json-schema.org/draft/2020-12/schema',
            '$comment': f'The fields deploy/ uses of {crd["spec"]["group"]}/{version["name"]} {kind}, strict: '
                        f'written by deploy/schemas/subset.py from {source}',
            'type': 'object',
            'properties': {
                'apiVersion': {'const': f'{crd["spec"]["group"]}/{version["name"]}'},
                'kind': {'const': kind},
                'metadata': {'$ref': '#/$defs/metadata'},
                'spec': spec,
            },
            'required': ['apiVersion', 'kind', 'metadata', 'spec'],
            'additionalProperties': False,
            '$defs': {'metadata': METADATA},
        }
    else:
        chart_path, values_path, source = sys.argv[2:5]
        chart = yaml.safe_load(open(chart_path))
        # A key the chart documents in a comment, not a default: a host
        # group's own `resources` ("uncomment to size one host group
        # differently"; templates/runtime/deployment.yaml reads
        # `.resources | default $top.Values.runtime.resources`).
        for group in chart.get('runtime', {}).get('hostGroups', []):
            group.setdefault('resources', chart['runtime']['resources'])
        schema = values_subset(chart, yaml.safe_load(open(values_path)), 'values')
        schema = {'$schema': 'https://json-schema.org/draft/2020-12/schema',
                  '$comment': f'The keys deploy/ uses of the chart\'s values, typed by its defaults: written by '
                              f'deploy/schemas/subset.py from {source}', **schema}
    json.dump(schema, sys.stdout, indent=2)
    sys.stdout.write('\n')


# Kubernetes ObjectMeta, the part a manifest here may set: a name (a DNS-1123
# subdomain), a namespace, labels, annotations.
METADATA = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'maxLength': 253, 'pattern': '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'},
        'namespace': {'type': 'string'},
        'labels': {'type': 'object', 'additionalProperties': {'type': 'string'}},
        'annotations': {'type': 'object', 'additionalProperties': {'type': 'string'}},
    },
    'required': ['name'],
    'additionalProperties': False,
}

main()
