// Validates the kustomize base in deploy/kubernetes offline: renders it
// the way kustomize does for the fields it uses (resources, labels,
// images, configMapGenerator), then checks every object against the
// Kubernetes API schema from the kubernetes-models package and checks
// that the pieces fit together. Usage: node validate.mjs DIR [--broken]
// (--broken first breaks a field, to show that validation catches it).
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";

const dir = process.argv[2];
const broken = process.argv.includes("--broken");
const problems = [];
const fail = (m) => problems.push(m);

const kust = YAML.parse(fs.readFileSync(path.join(dir, "kustomization.yaml"), "utf8"));
const known = new Set(["apiVersion", "kind", "labels", "resources", "images",
  "configMapGenerator", "generatorOptions"]);
for (const k of Object.keys(kust))
  if (!known.has(k)) fail(`kustomization.yaml: field ${k} is not rendered here`);
if (kust.apiVersion !== "kustomize.config.k8s.io/v1beta1" || kust.kind !== "Kustomization")
  fail("kustomization.yaml: not a kustomize.config.k8s.io/v1beta1 Kustomization");

let objs = [];
for (const r of kust.resources ?? []) {
  const docs = YAML.parseAllDocuments(fs.readFileSync(path.join(dir, r), "utf8"));
  for (const d of docs) {
    if (d.errors.length) fail(`${r}: ${d.errors[0].message}`);
    objs.push({ file: r, obj: d.toJS() });
  }
}
for (const g of kust.configMapGenerator ?? []) {
  const data = {};
  for (const l of g.literals ?? []) {
    const i = l.indexOf("=");
    data[l.slice(0, i)] = l.slice(i + 1);
  }
  if (!kust.generatorOptions?.disableNameSuffixHash)
    fail("configMapGenerator: names would get a hash suffix the Job does not use");
  objs.push({ file: "configMapGenerator", obj: { apiVersion: "v1", kind: "ConfigMap",
    metadata: { name: g.name }, data } });
}
for (const { obj } of objs) {
  for (const l of kust.labels ?? [])
    obj.metadata.labels = { ...(obj.metadata.labels ?? {}), ...l.pairs };
  const pod = obj.spec?.template?.spec;
  for (const c of pod?.containers ?? [])
    for (const im of kust.images ?? [])
      if (c.image === im.name) c.image = `${im.newName ?? im.name}:${im.newTag}`;
}
if (broken) {
  const ss = objs.find((o) => o.obj.kind === "StatefulSet").obj;
  ss.spec.template.spec.containers[0].ports[0].containerPort = "twelve";
  ss.spec.replicas = "two";
}

// The API schema, per group/version/kind, from kubernetes-models.
for (const { file, obj } of objs) {
  const [group, version] = obj.apiVersion.includes("/")
    ? obj.apiVersion.split("/") : [null, obj.apiVersion];
  const mod = `kubernetes-models/${group ? group + "/" : ""}${version}/${obj.kind}`;
  let Model;
  try {
    Model = (await import(mod))[obj.kind];
  } catch (e) {
    fail(`${file}: ${obj.apiVersion} ${obj.kind} is not in the Kubernetes API`);
    continue;
  }
  try {
    new Model(obj).validate();
  } catch (e) {
    fail(`${file}: ${obj.kind}/${obj.metadata?.name}: ${e.message.split("\n")[0]}`);
  }
}

// How the pieces fit: what the schema cannot see.
const get = (kind) => objs.filter((o) => o.obj.kind === kind).map((o) => o.obj);
const [svc] = get("Service"), [ss] = get("StatefulSet"), [job] = get("Job"), [cm] = get("ConfigMap");
if (!svc || !ss || !job || !cm) fail("expected a Service, a StatefulSet, a Job and a ConfigMap");
else {
  if (svc.spec.clusterIP !== "None") fail("the Service is not headless");
  if (ss.spec.serviceName !== svc.metadata.name) fail("the StatefulSet's serviceName is not the Service");
  const sel = (o) => JSON.stringify(o);
  if (sel(svc.spec.selector) !== sel(ss.spec.selector.matchLabels))
    fail("the Service does not select the netserver pods");
  for (const [k, v] of Object.entries(ss.spec.selector.matchLabels))
    if (ss.spec.template.metadata.labels[k] !== v) fail("the StatefulSet's selector misses its pods");
  const port = ss.spec.template.spec.containers[0].ports?.[0];
  if (!port || svc.spec.ports[0].targetPort !== port.name || port.containerPort !== 12865)
    fail("the Service's port is not netserver's control port");
  if (job.spec.completionMode !== "Indexed") fail("the Job is not Indexed");
  if (job.spec.completions !== job.spec.parallelism)
    fail("the clients do not all run at once (completions != parallelism)");
  if (job.spec.backoffLimit !== 0) fail("a failed client would be retried at another time");
  const client = job.spec.template.spec.containers[0];
  const script = client.args.join(" ");
  for (const w of ["--start-at", "--json", "JOB_COMPLETION_INDEX", "SERVERS", "netserver-"])
    if (!script.includes(w)) fail(`the client's command lacks ${w}`);
  if (!client.envFrom?.some((e) => e.configMapRef?.name === cm.metadata.name))
    fail("the client does not read the fleet ConfigMap");
  for (const k of ["SERVERS", "TEST", "LENGTH", "INTERVAL", "ARGS", "START_AT"])
    if (!(k in cm.data)) fail(`the ConfigMap lacks ${k}`);
  if (Number(cm.data.SERVERS) !== ss.spec.replicas)
    fail("SERVERS is not the StatefulSet's replicas");
  const nsArgs = ss.spec.template.spec.containers[0].args.join(" ");
  for (const w of ["-D", "--max-sessions", "--max-duration", "--auth-file"])
    if (!nsArgs.includes(w)) fail(`netserver's command lacks ${w}`);
}

if (problems.length) {
  for (const p of problems) console.log("k8s_validate: " + p);
  process.exit(1);
}
console.log(`k8s_validate: ${objs.length} objects valid against the Kubernetes API schema`);
