#!/usr/bin/env python3
"""fuzz_rest_seeds.py - writes the seed corpora of the REST fuzz targets into
fuzz/seeds/fuzz_rest_response/ and fuzz/seeds/fuzz_rest_request/ (checked in;
scripts/fuzz.sh adds fuzz/seeds/<target> to each run). Each seed is the
target's selector byte followed by a body:

  fuzz_rest_response (include/floe/rest.h): 0 LoadTableResult (fixture
    metadata files of ../shared/fixtures/iceberg wrapped as the server sends
    them), 1 CatalogConfig, 2 ListNamespacesResponse, 3 ListTablesResponse,
    4 GetNamespaceResponse, 5 error bodies (every error example of the
    OpenAPI document, OAuth errors), 6 OAuth token responses, 7 the
    CommitTableRequest holding every update and requirement
    (`rest_test_rest_json --dump`).
  fuzz_rest_request (src/server): 0 request paths with query strings, 1
    CommitTableRequest bodies, 2 CreateTableRequest bodies, 3 JSON bodies for
    the depth scanner and location checker.

Bodies come from the REST OpenAPI document's examples
(../shared/reference/rest-catalog-open-api.yaml), the fixture tables, the
test_rest_json dump and request shapes of tests/server/test_server.c.

  scripts/fuzz_rest_seeds.py [--dump build/rest_test_rest_json] [--shared ../shared]
"""
import argparse, glob, gzip, json, os, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument('--dump', default='build/rest_test_rest_json')
ap.add_argument('--shared', default=os.path.join(os.path.dirname(__file__), '..', '..', 'shared'))
args = ap.parse_args()
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
out_resp = os.path.join(root, 'fuzz', 'seeds', 'fuzz_rest_response')
out_req = os.path.join(root, 'fuzz', 'seeds', 'fuzz_rest_request')
os.makedirs(out_resp, exist_ok=True)
os.makedirs(out_req, exist_ok=True)
count = {'resp': 0, 'req': 0}


def put(kind, sel, name, body):
    if not isinstance(body, (bytes, str)):
        body = json.dumps(body, separators=(',', ':'))
    if isinstance(body, str):
        body = body.encode()
    d = out_resp if kind == 'resp' else out_req
    with open(os.path.join(d, '%d-%s' % (sel, name)), 'wb') as f:
        f.write(bytes([sel]) + body)
    count[kind] += 1


examples = {}
try:
    import yaml
    spec = yaml.safe_load(open(os.path.join(args.shared, 'reference', 'rest-catalog-open-api.yaml')))
    examples = {k: v.get('value') for k, v in spec['components'].get('examples', {}).items()}
except Exception as e:  # the seeds below still get written
    print('no OpenAPI examples: %s' % e, file=sys.stderr)

# ---- responses ----
metas = sorted(glob.glob(os.path.join(args.shared, 'fixtures', 'iceberg', '**', '*.metadata.json'),
                         recursive=True))
metas = [m for m in metas if os.path.getsize(m) < 12000][:24]
docs = []
for m in metas:
    raw = open(m, 'rb').read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    try:
        docs.append(json.loads(raw))
    except ValueError:
        pass
for i, doc in enumerate(docs):
    put('resp', 0, 'load-%02d' % i, {'metadata-location': 's3://w/t/metadata/v%d.metadata.json' % i,
                                     'metadata': doc, 'config': {'s3.endpoint': 'http://127.0.0.1:9000'}})
    if i == 0:
        put('resp', 0, 'load-storage-creds', {
            'metadata-location': 's3://w/t/metadata/v0.metadata.json', 'metadata': doc,
            'storage-credentials': [{'prefix': 's3://w/', 'config': {'s3.access-key-id': 'k'}}]})
        put('resp', 0, 'commit-response', {'metadata-location': 's3://w/t/metadata/v1.metadata.json',
                                          'metadata': doc})
put('resp', 1, 'config', {'defaults': {'clients': '4', 'warehouse': 's3://w'},
                          'overrides': {'prefix': 'cat%2Fa', 'uri': 'http://127.0.0.1:8181'},
                          'endpoints': ['GET /v1/{prefix}/namespaces', 'POST /v1/{prefix}/transactions/commit',
                                        'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}']})
put('resp', 1, 'config-min', {'defaults': {}, 'overrides': {}})
put('resp', 2, 'namespaces-page', {'namespaces': [['accounting', 'tax'], ['a\u00e9', 'b\u001fc']],
                                   'next-page-token': 'tok-2'})
put('resp', 3, 'tables-page', {'identifiers': [{'namespace': ['db'], 'name': 't'}], 'next-page-token': None})
put('resp', 4, 'namespace', {'namespace': ['accounting', 'tax'],
                             'properties': {'owner': 'Ralph', 'transient_lastDdlTime': '1452120468'}})
put('resp', 5, 'oauth-error', {'error': 'invalid_client', 'error_description': 'bad secret'})
put('resp', 5, 'error-stack', {'error': {'message': 'm', 'type': 'CommitFailedException', 'code': 409,
                                         'stack': ['a', 'b']}})
put('resp', 6, 'token', {'access_token': 'eyJhbGciOiJIUzI1NiJ9.e30.x', 'token_type': 'bearer',
                         'expires_in': 3600, 'issued_token_type':
                         'urn:ietf:params:oauth:token-type:access_token', 'refresh_token': 'r'})
put('resp', 6, 'token-min', {'access_token': 't', 'token_type': 'Bearer'})
for k, v in examples.items():
    if v is None or isinstance(v, str):
        continue
    if 'namespaces' in v:
        put('resp', 2, 'ex-' + k, v)
    elif 'identifiers' in v:
        put('resp', 3, 'ex-' + k, v)
    elif 'error' in v:
        put('resp', 5, 'ex-' + k, v)
commit = None
with tempfile.TemporaryDirectory() as td:
    p = os.path.join(td, 'commit.json')
    try:
        subprocess.run([args.dump, '--dump', p], check=True, stdout=subprocess.DEVNULL)
        commit = open(p).read()
    except Exception as e:
        print('no commit dump (%s): build rest_test_rest_json first' % e, file=sys.stderr)
if commit:
    put('resp', 7, 'commit-every-update', commit)
    put('req', 1, 'commit-every-update', commit)

# ---- requests ----
for i, path in enumerate(['/v1/config?warehouse=s3%3A%2F%2Fw',
                          '/v1/cat/namespaces?parent=accounting%1Ftax&pageToken=x&pageSize=10',
                          '/v1/cat/namespaces/accounting%1Ftax',
                          '/v1/cat/namespaces/db/tables/t?snapshots=refs',
                          '/v1/cat/namespaces/db/tables/t%20x/metrics',
                          '/v1/cat/namespaces/db/views/v',
                          '/v1/cat/transactions/commit',
                          '/v1/cat/namespaces/db/properties']):
    put('req', 0, 'path-%d' % i, path + '\n' + 'a+b%20c%2B')
schema = {'type': 'struct', 'schema-id': 0, 'identifier-field-ids': [1], 'fields': [
    {'id': 1, 'name': 'id', 'required': True, 'type': 'long'},
    {'id': 2, 'name': 'tags', 'required': False, 'type': {'type': 'list', 'element-id': 3,
                                                          'element': 'string', 'element-required': False}},
    {'id': 4, 'name': 'price', 'required': False, 'type': 'decimal(9, 2)'},
    {'id': 5, 'name': 'ts', 'required': False, 'type': 'timestamptz'},
    {'id': 6, 'name': 'm', 'required': False, 'type': {'type': 'map', 'key-id': 7, 'key': 'string',
                                                       'value-id': 8, 'value': 'int', 'value-required': False}}]}
put('req', 2, 'create-full', {'name': 't', 'location': 's3://w/db/t', 'schema': schema,
                              'partition-spec': {'spec-id': 0, 'fields': [
                                  {'name': 'id_bucket', 'transform': 'bucket[16]', 'source-id': 1,
                                   'field-id': 1000},
                                  {'name': 'ts_day', 'transform': 'day', 'source-id': 5, 'field-id': 1001}]},
                              'write-order': {'order-id': 1, 'fields': [
                                  {'transform': 'identity', 'source-id': 1, 'direction': 'desc',
                                   'null-order': 'nulls-last'}]},
                              'stage-create': False, 'properties': {'format-version': '2'}})
put('req', 2, 'create-min', {'name': 't', 'schema': {'type': 'struct', 'fields': [
    {'id': 1, 'name': 'x', 'required': False, 'type': 'int'}]}})
put('req', 1, 'commit-append', {
    'identifier': {'namespace': ['db'], 'name': 't'},
    'requirements': [{'type': 'assert-ref-snapshot-id', 'ref': 'main', 'snapshot-id': None}],
    'updates': [{'action': 'add-snapshot', 'snapshot': {
        'snapshot-id': 1, 'sequence-number': 2, 'timestamp-ms': 1700000000000,
        'manifest-list': '/w/db/t/metadata/snap-1.avro',
        'summary': {'operation': 'append', 'added-data-files': '1', 'added-records': '1'},
        'schema-id': 0}},
        {'action': 'set-snapshot-ref', 'ref-name': 'main', 'type': 'branch', 'snapshot-id': 1}]})
put('req', 1, 'commit-props', {'requirements': [{'type': 'assert-table-uuid',
                                                 'uuid': '9c12d441-03fe-4693-9a96-a0705ddf69c1'}],
                               'updates': [{'action': 'set-properties', 'updates': {'k': 'v'}},
                                           {'action': 'remove-properties', 'removals': ['x']},
                                           {'action': 'set-location', 'location': '/w/db/t2'}]})
put('req', 3, 'nested', '{"a":[[[[{"b":[1,2,{"c":null}]}]]]],"location":"s3://w/db/t"}')
put('req', 3, 'location', {'location': 'file:///w/db/t/../../etc', 'properties': {}})
for k, v in examples.items():
    if isinstance(v, dict) and ('source' in v or 'updates' in v):
        put('req', 3, 'ex-' + k, v)
print('wrote %d response seeds to %s, %d request seeds to %s' %
      (count['resp'], out_resp, count['req'], out_req))
