//! The deployment files under `ops/`, checked against each other and against
//! the `foxbase` binary: the Kubernetes manifests of `ops/k8s/` (every YAML
//! document of every file), the systemd units of `ops/systemd/` and the
//! worker VM's `ops/cloud-init/worker.yaml`.
//!
//! Kubernetes: every Secret and ConfigMap a container or volume names exists
//! with the keys it names, and every `$(VAR)` in a container's arguments is
//! defined; the coordinator's Service selects the coordinator's pods and
//! targets its container ports, and the workers' `--coordinator` URL names
//! that Service and its port; every container runs the same image; every
//! `--flag` in a container's arguments is in `foxbase <subcommand> --help`,
//! and the whole argument list parses; resource requests follow the capacity
//! plan of docs/distributed.md. Each failure names the file, the document
//! and the field.
//!
//! systemd: `systemd-analyze verify ops/systemd/*.service` reports nothing
//! but the absence of /usr/local/bin/foxbase (it needs
//! /usr/bin/systemd-analyze), both units read the store's credentials from
//! /etc/foxbase/s3.env with an s3:// STORE, every flag of their foxbase
//! command lines is in the help, and an `Environment=` variable whose value
//! holds spaces is passed as `${VAR}` (one argument), not `$VAR`.
//! cloud-init: the worker VM writes the token and s3.env with mode 0600,
//! installs ops/systemd/foxbase-worker.service verbatim and mounts no shared
//! filesystem.
//!
//! Both: the coordinator of Kubernetes and of systemd, which restart it with
//! the same command line, passes `--resume-if-journaled` (a restart resumes
//! the journaled run, the first start begins it) and not `--resume`.

use serde_yaml::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the crate is in the repository").to_path_buf()
}

fn foxbase() -> &'static str {
    env!("CARGO_BIN_EXE_foxbase")
}

/// Fails the test with every problem found, one a line.
fn report(what: &str, problems: Vec<String>) {
    assert!(problems.is_empty(), "{what}: {} problem(s):\n  - {}", problems.len(), problems.join("\n  - "));
}

/// One YAML document of a file under ops/k8s/.
struct Doc {
    /// Relative to the repository, e.g. `ops/k8s/workers.yaml`.
    file: String,
    /// 1-based, in file order.
    number: usize,
    line: usize,
    value: Value,
}

impl Doc {
    fn kind(&self) -> &str {
        str_at(&self.value, "kind").unwrap_or("")
    }

    fn name(&self) -> &str {
        str_at(&self.value, "metadata.name").unwrap_or("")
    }

    /// `ops/k8s/x.yaml, document 2 (line 40), Deployment foxbase-coordinator`
    fn at(&self) -> String {
        format!("{}, document {} (line {}), {} {}", self.file, self.number, self.line, self.kind(), self.name())
    }
}

/// A file's YAML documents with the line each starts on: split at `---` lines.
fn split_documents(text: &str) -> Vec<(usize, String)> {
    let mut docs = vec![(1, String::new())];
    for (i, line) in text.lines().enumerate() {
        if line.trim_end() == "---" || line.starts_with("--- ") {
            docs.push((i + 2, String::new()));
        } else {
            let doc = &mut docs.last_mut().expect("one document at least").1;
            doc.push_str(line);
            doc.push('\n');
        }
    }
    docs
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    files
}

/// Every non-empty YAML document under ops/k8s/; a document that does not
/// parse fails the test here.
fn k8s_docs() -> Vec<Doc> {
    let root = repo();
    let files = yaml_files(&root.join("ops/k8s"));
    assert!(!files.is_empty(), "ops/k8s/ has no .yaml files");
    let mut docs = Vec::new();
    let mut problems = Vec::new();
    for path in files {
        let file = path.strip_prefix(&root).expect("under the repository").display().to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        for (number, (line, doc)) in split_documents(&text).into_iter().enumerate() {
            match serde_yaml::from_str::<Value>(&doc) {
                Ok(Value::Null) => {}
                Ok(value) => docs.push(Doc { file: file.clone(), number: number + 1, line, value }),
                Err(e) => problems.push(format!("{file}, document {} (line {line}): not YAML: {e}", number + 1)),
            }
        }
    }
    report("ops/k8s/ parses", problems);
    docs
}

fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, key| v.get(key))
}

fn str_at<'a>(v: &'a Value, path: &str) -> Option<&'a str> {
    at(v, path).and_then(Value::as_str)
}

fn seq(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_sequence).map_or(&[], |s| s.as_slice())
}

/// A scalar as text (`"9"`, `9` and `true` alike).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The string map at `path` (labels, selectors, annotations).
fn string_map(v: &Value, path: &str) -> BTreeMap<String, String> {
    at(v, path)
        .and_then(Value::as_mapping)
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.as_str()?.to_string(), scalar(v)?))).collect())
        .unwrap_or_default()
}

/// Where a workload keeps its pod template: (metadata path, spec path).
fn pod_template_paths(kind: &str) -> Option<(&'static str, &'static str)> {
    match kind {
        "Pod" => Some(("metadata", "spec")),
        "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" | "Job" => {
            Some(("spec.template.metadata", "spec.template.spec"))
        }
        "CronJob" => Some(("spec.jobTemplate.spec.template.metadata", "spec.jobTemplate.spec.template.spec")),
        _ => None,
    }
}

/// A container of a workload, with where it is.
struct Container<'a> {
    doc: &'a Doc,
    pod_metadata: &'static str,
    pod_spec: &'a Value,
    /// e.g. `spec.template.spec.containers[0]`
    field: String,
    value: &'a Value,
}

impl Container<'_> {
    fn name(&self) -> &str {
        str_at(self.value, "name").unwrap_or("?")
    }

    fn at(&self) -> String {
        format!("{}: {} ({})", self.doc.at(), self.field, self.name())
    }

    /// The arguments after the program: `command[1..]` and `args`, or `args`
    /// alone (the image's entrypoint is `/foxbase`).
    fn argv(&self) -> Vec<String> {
        let command: Vec<String> = seq(self.value.get("command")).iter().filter_map(scalar).collect();
        let args = seq(self.value.get("args")).iter().filter_map(scalar);
        command.into_iter().skip(1).chain(args).collect()
    }

    fn subcommand(&self) -> Option<String> {
        self.argv().into_iter().next()
    }

    /// The value of `--flag` (`--flag VALUE` or `--flag=VALUE`).
    fn flag(&self, flag: &str) -> Option<String> {
        let argv = self.argv();
        let prefix = format!("{flag}=");
        argv.iter().enumerate().find_map(|(i, a)| {
            if a == flag {
                argv.get(i + 1).cloned()
            } else {
                a.strip_prefix(&prefix).map(str::to_string)
            }
        })
    }

    fn pod_labels(&self) -> BTreeMap<String, String> {
        string_map(&self.doc.value, &format!("{}.labels", self.pod_metadata))
    }

    fn pod_annotations(&self) -> BTreeMap<String, String> {
        string_map(&self.doc.value, &format!("{}.annotations", self.pod_metadata))
    }

    /// (name, number) of each container port.
    fn ports(&self) -> Vec<(Option<String>, u64)> {
        seq(self.value.get("ports"))
            .iter()
            .filter_map(|p| Some((str_at(p, "name").map(str::to_string), at(p, "containerPort")?.as_u64()?)))
            .collect()
    }

    /// The volume mounted at the longest mount path that holds `path`, with
    /// the path below it.
    fn volume_of(&self, path: &str) -> Option<(&Value, String)> {
        let mount = seq(self.value.get("volumeMounts"))
            .iter()
            .filter_map(|m| Some((str_at(m, "name")?, str_at(m, "mountPath")?)))
            .filter(|(_, dir)| path == *dir || path.starts_with(&format!("{}/", dir.trim_end_matches('/'))))
            .max_by_key(|(_, dir)| dir.len())?;
        let volume = seq(self.pod_spec.get("volumes")).iter().find(|v| str_at(v, "name") == Some(mount.0))?;
        Some((volume, path[mount.1.len()..].trim_start_matches('/').to_string()))
    }
}

fn containers(docs: &[Doc]) -> Vec<Container<'_>> {
    let mut all = Vec::new();
    for doc in docs {
        let Some((pod_metadata, pod_spec_path)) = pod_template_paths(doc.kind()) else { continue };
        let Some(pod_spec) = at(&doc.value, pod_spec_path) else { continue };
        for list in ["initContainers", "containers"] {
            for (i, value) in seq(pod_spec.get(list)).iter().enumerate() {
                all.push(Container {
                    doc,
                    pod_metadata,
                    pod_spec,
                    field: format!("{pod_spec_path}.{list}[{i}]"),
                    value,
                });
            }
        }
    }
    all
}

/// The keys of each ConfigMap and Secret: (kind, name) -> key -> value.
fn key_sources(docs: &[Doc]) -> BTreeMap<(String, String), BTreeMap<String, String>> {
    let mut sources = BTreeMap::new();
    for doc in docs {
        let fields: &[&str] = match doc.kind() {
            "ConfigMap" => &["data", "binaryData"],
            "Secret" => &["data", "stringData"],
            _ => continue,
        };
        let keys: &mut BTreeMap<String, String> =
            sources.entry((doc.kind().to_string(), doc.name().to_string())).or_default();
        for field in fields {
            keys.extend(string_map(&doc.value, field));
        }
    }
    sources
}

/// `$(NAME)`s in a string (Kubernetes' expansion in command and args; `$$` escapes).
fn var_refs(s: &str) -> Vec<String> {
    let mut refs = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find('$') {
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            rest = tail;
        } else if let Some(inner) = after.strip_prefix('(') {
            match inner.find(')') {
                Some(end) => {
                    refs.push(inner[..end].to_string());
                    rest = &inner[end + 1..];
                }
                None => break,
            }
        } else {
            rest = after;
        }
    }
    refs
}

/// A container's environment as far as the manifests tell: name -> value
/// (the referenced key's value for secretKeyRef/configMapKeyRef, every key
/// of an envFrom source with its prefix).
fn environment(
    c: &Container,
    sources: &BTreeMap<(String, String), BTreeMap<String, String>>,
) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for from in seq(c.value.get("envFrom")) {
        let prefix = str_at(from, "prefix").unwrap_or("");
        for (field, kind) in [("configMapRef", "ConfigMap"), ("secretRef", "Secret")] {
            if let Some(name) = from.get(field).and_then(|r| str_at(r, "name")) {
                for (k, v) in sources.get(&(kind.to_string(), name.to_string())).into_iter().flatten() {
                    env.insert(format!("{prefix}{k}"), v.clone());
                }
            }
        }
    }
    for var in seq(c.value.get("env")) {
        let Some(name) = str_at(var, "name") else { continue };
        let value = if let Some(v) = var.get("value") {
            scalar(v).unwrap_or_default()
        } else {
            [("valueFrom.configMapKeyRef", "ConfigMap"), ("valueFrom.secretKeyRef", "Secret")]
                .iter()
                .find_map(|(path, kind)| {
                    let r = at(var, path)?;
                    sources.get(&(kind.to_string(), str_at(r, "name")?.to_string()))?.get(str_at(r, "key")?).cloned()
                })
                .unwrap_or_default()
        };
        env.insert(name.to_string(), value);
    }
    env
}

fn namespace_of(doc: &Doc) -> Option<&str> {
    str_at(&doc.value, "metadata.namespace")
}

#[test]
fn k8s_documents_are_named_and_listed() {
    let docs = k8s_docs();
    let mut problems = Vec::new();
    let mut kustomization = None;
    for doc in &docs {
        if doc.kind() == "Kustomization" {
            kustomization = Some(doc);
            continue;
        }
        for field in ["apiVersion", "kind", "metadata.name"] {
            if !matches!(str_at(&doc.value, field), Some(s) if !s.is_empty()) {
                problems.push(format!("{}: no {field}", doc.at()));
            }
        }
    }
    // One namespace for everything: the Namespace's, or the Kustomization's.
    let mut namespaces: BTreeSet<&str> = docs.iter().filter(|d| d.kind() == "Namespace").map(Doc::name).collect();
    if let Some(k) = kustomization {
        namespaces.extend(str_at(&k.value, "namespace"));
    }
    if namespaces.len() > 1 {
        problems.push(format!("more than one namespace: {namespaces:?}"));
    }
    for doc in docs.iter().filter(|d| !matches!(d.kind(), "Namespace" | "Kustomization")) {
        if let (Some(ns), Some(expected)) = (namespace_of(doc), namespaces.first()) {
            if ns != *expected {
                problems.push(format!("{}: metadata.namespace is {ns:?}, not {expected:?}", doc.at()));
            }
        }
    }
    let mut seen = BTreeSet::new();
    for doc in &docs {
        if !seen.insert((doc.kind(), doc.name())) {
            problems.push(format!("{}: a second {} named {:?}", doc.at(), doc.kind(), doc.name()));
        }
    }
    // The Kustomization lists every other file of ops/k8s/, and only those.
    if let Some(k) = kustomization {
        let listed: BTreeSet<String> = seq(k.value.get("resources")).iter().filter_map(scalar).collect();
        let files: BTreeSet<String> = docs
            .iter()
            .filter(|d| d.file != k.file)
            .map(|d| d.file.trim_start_matches("ops/k8s/").to_string())
            .collect();
        for missing in files.difference(&listed) {
            problems.push(format!("{}: resources does not list {missing}", k.at()));
        }
        for extra in listed.difference(&files) {
            problems.push(format!("{}: resources lists {extra}, which is not a manifest in ops/k8s/", k.at()));
        }
    }
    report("ops/k8s/ documents", problems);
}

#[test]
fn k8s_secrets_and_config_maps_exist_with_their_keys() {
    let docs = k8s_docs();
    let sources = key_sources(&docs);
    let mut problems = Vec::new();
    let mut need = |at: String, kind: &str, name: Option<&str>, key: Option<&str>| {
        let Some(name) = name else {
            problems.push(format!("{at}: no name"));
            return;
        };
        match (sources.get(&(kind.to_string(), name.to_string())), key) {
            (None, _) => problems.push(format!("{at}: {kind} {name:?} is not in ops/k8s/")),
            (Some(keys), Some(key)) if !keys.contains_key(key) => problems.push(format!(
                "{at}: {kind} {name:?} has no key {key:?} (it has {:?})",
                keys.keys().collect::<Vec<_>>()
            )),
            _ => {}
        }
    };
    for c in containers(&docs) {
        for (i, var) in seq(c.value.get("env")).iter().enumerate() {
            for (field, kind) in [("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")] {
                if let Some(r) = at(var, &format!("valueFrom.{field}")) {
                    let at = format!("{}.env[{i}].valueFrom.{field}", c.at());
                    need(at, kind, str_at(r, "name"), Some(str_at(r, "key").unwrap_or("")));
                }
            }
        }
        for (i, from) in seq(c.value.get("envFrom")).iter().enumerate() {
            for (field, kind) in [("configMapRef", "ConfigMap"), ("secretRef", "Secret")] {
                if let Some(r) = from.get(field) {
                    need(format!("{}.envFrom[{i}].{field}", c.at()), kind, str_at(r, "name"), None);
                }
            }
        }
    }
    for doc in &docs {
        let Some((_, spec_path)) = pod_template_paths(doc.kind()) else { continue };
        let Some(spec) = at(&doc.value, spec_path) else { continue };
        for (i, volume) in seq(spec.get("volumes")).iter().enumerate() {
            let field = format!("{}: {spec_path}.volumes[{i}]", doc.at());
            let mut refs: Vec<(String, &str, Option<&str>, &Value)> = Vec::new();
            if let Some(s) = volume.get("secret") {
                refs.push((format!("{field}.secret"), "Secret", str_at(s, "secretName"), s));
            }
            if let Some(m) = volume.get("configMap") {
                refs.push((format!("{field}.configMap"), "ConfigMap", str_at(m, "name"), m));
            }
            for (j, source) in seq(at(volume, "projected.sources")).iter().enumerate() {
                for (key, kind) in [("secret", "Secret"), ("configMap", "ConfigMap")] {
                    if let Some(s) = source.get(key) {
                        refs.push((format!("{field}.projected.sources[{j}].{key}"), kind, str_at(s, "name"), s));
                    }
                }
            }
            for (at_field, kind, name, source) in refs {
                need(at_field.clone(), kind, name, None);
                for (k, item) in seq(source.get("items")).iter().enumerate() {
                    need(format!("{at_field}.items[{k}]"), kind, name, Some(str_at(item, "key").unwrap_or("")));
                }
            }
        }
    }
    // Every $(VAR) in a container's command and arguments is defined.
    for c in containers(&docs) {
        let env = environment(&c, &sources);
        for (list, values) in [("command", c.value.get("command")), ("args", c.value.get("args"))] {
            for (i, arg) in seq(values).iter().enumerate() {
                for var in var_refs(&scalar(arg).unwrap_or_default()) {
                    if !env.contains_key(&var) {
                        problems
                            .push(format!("{}.{list}[{i}]: $({var}) is not in the container's env or envFrom", c.at()));
                    }
                }
            }
        }
    }
    report("references to Secrets and ConfigMaps", problems);
}

#[test]
fn k8s_secret_values_are_placeholders() {
    // Real credentials never belong in the repository.
    let docs = k8s_docs();
    let mut problems = Vec::new();
    for doc in docs.iter().filter(|d| d.kind() == "Secret") {
        if doc.value.get("data").is_some() {
            problems.push(format!("{}: data (base64) instead of stringData placeholders", doc.at()));
        }
        for (key, value) in string_map(&doc.value, "stringData") {
            if !value.contains("REPLACE-ME") {
                problems.push(format!("{}: stringData.{key} is not a REPLACE-ME placeholder", doc.at()));
            }
        }
    }
    report("Secret placeholders", problems);
}

fn matches_selector(selector: &BTreeMap<String, String>, labels: &BTreeMap<String, String>) -> bool {
    !selector.is_empty() && selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

/// The coordinator's containers: those running `foxbase coordinator`.
fn coordinators<'a>(all: &'a [Container<'a>]) -> Vec<&'a Container<'a>> {
    all.iter().filter(|c| c.subcommand().as_deref() == Some("coordinator")).collect()
}

fn workers<'a>(all: &'a [Container<'a>]) -> Vec<&'a Container<'a>> {
    all.iter().filter(|c| c.subcommand().as_deref() == Some("worker")).collect()
}

/// The port of an address such as `0.0.0.0:7341` or `[::]:7341`.
fn port_of(address: &str) -> Option<u64> {
    address.rsplit_once(':')?.1.parse().ok()
}

/// The container port a Service's targetPort names (a name or a number).
fn target_port(target: &Value, ports: &[(Option<String>, u64)]) -> Option<u64> {
    match target {
        Value::Number(n) => ports.iter().find(|(_, p)| Some(*p) == n.as_u64()).map(|(_, p)| *p),
        Value::String(s) => match s.parse::<u64>() {
            Ok(n) => ports.iter().find(|(_, p)| *p == n).map(|(_, p)| *p),
            Err(_) => ports.iter().find(|(name, _)| name.as_deref() == Some(s)).map(|(_, p)| *p),
        },
        _ => None,
    }
}

#[test]
fn k8s_service_matches_the_coordinator() {
    let docs = k8s_docs();
    let all = containers(&docs);
    let coordinators = coordinators(&all);
    let mut problems = Vec::new();
    if coordinators.len() != 1 {
        problems.push(format!(
            "ops/k8s/: {} containers run `foxbase coordinator`, not one: {:?}",
            coordinators.len(),
            coordinators.iter().map(|c| c.at()).collect::<Vec<_>>()
        ));
    }
    for c in &coordinators {
        let labels = c.pod_labels();
        let doc = c.doc;
        if doc.kind() == "Deployment" {
            if at(&doc.value, "spec.replicas").and_then(Value::as_u64) != Some(1) {
                problems.push(format!("{}: spec.replicas must be 1 (one coordinator per store)", doc.at()));
            }
            if str_at(&doc.value, "spec.strategy.type") != Some("Recreate") {
                problems.push(format!("{}: spec.strategy.type must be Recreate (never two coordinators)", doc.at()));
            }
            let selector = string_map(&doc.value, "spec.selector.matchLabels");
            if !matches_selector(&selector, &labels) {
                problems.push(format!(
                    "{}: spec.selector.matchLabels {selector:?} does not match {}.labels {labels:?}",
                    doc.at(),
                    c.pod_metadata
                ));
            }
        }
        // --listen's port is a container port.
        match c.flag("--listen").as_deref().map(port_of) {
            Some(Some(port)) if c.ports().iter().any(|(_, p)| *p == port) => {}
            Some(Some(port)) => problems.push(format!("{}: --listen port {port} is not in ports", c.at())),
            _ => problems.push(format!("{}: args: no --listen HOST:PORT (the default is 127.0.0.1)", c.at())),
        }
    }
    let services: Vec<&Doc> = docs.iter().filter(|d| d.kind() == "Service").collect();
    if services.is_empty() {
        problems.push("ops/k8s/: no Service".into());
    }
    for service in services {
        let selector = string_map(&service.value, "spec.selector");
        let selected: Vec<&Container> = all.iter().filter(|c| matches_selector(&selector, &c.pod_labels())).collect();
        if selected.is_empty() {
            problems.push(format!("{}: spec.selector {selector:?} matches no pod template's labels", service.at()));
        }
        if selected.iter().any(|c| c.subcommand().as_deref() != Some("coordinator")) {
            problems.push(format!(
                "{}: spec.selector {selector:?} selects pods that are not the coordinator's: {:?}",
                service.at(),
                selected.iter().map(|c| c.at()).collect::<Vec<_>>()
            ));
        }
        for (i, port) in seq(at(&service.value, "spec.ports")).iter().enumerate() {
            let field = format!("{}: spec.ports[{i}]", service.at());
            let target = port.get("targetPort").or_else(|| port.get("port")).unwrap_or(&Value::Null);
            for c in &selected {
                if target_port(target, &c.ports()).is_none() {
                    problems.push(format!(
                        "{field}.targetPort {target:?} is not a port of {} (it has {:?})",
                        c.at(),
                        c.ports()
                    ));
                }
            }
        }
    }
    report("the coordinator's Service", problems);
}

/// The Service names that reach it from the same namespace or from any.
fn service_hosts(service: &Doc) -> Vec<String> {
    let name = service.name();
    let mut hosts = vec![name.to_string()];
    if let Some(ns) = namespace_of(service) {
        for suffix in ["", ".svc", ".svc.cluster.local"] {
            hosts.push(format!("{name}.{ns}{suffix}"));
        }
    }
    hosts
}

#[test]
fn k8s_workers_reach_the_coordinators_service() {
    let docs = k8s_docs();
    let all = containers(&docs);
    let coordinators = coordinators(&all);
    let workers = workers(&all);
    let mut problems = Vec::new();
    if workers.is_empty() {
        problems.push("ops/k8s/: no container runs `foxbase worker`".into());
    }
    for w in &workers {
        let Some(url) = w.flag("--coordinator") else {
            problems.push(format!("{}: args: no --coordinator URL", w.at()));
            continue;
        };
        let Some(rest) = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://")) else {
            problems.push(format!("{}: --coordinator {url:?} is not an http:// or https:// URL", w.at()));
            continue;
        };
        let authority = rest.split('/').next().unwrap_or("");
        let Some((host, port)) = authority.rsplit_once(':').and_then(|(h, p)| Some((h, p.parse::<u64>().ok()?))) else {
            problems.push(format!("{}: --coordinator {url:?} names no port", w.at()));
            continue;
        };
        // The Service the host names, in the worker's namespace.
        let service =
            docs.iter().filter(|d| d.kind() == "Service").find(|s| service_hosts(s).iter().any(|h| h == host));
        let Some(service) = service else {
            problems
                .push(format!("{}: --coordinator {url:?}: {host:?} is the DNS name of no Service in ops/k8s/", w.at()));
            continue;
        };
        if namespace_of(service) != namespace_of(w.doc) && !host.contains('.') {
            problems.push(format!(
                "{}: --coordinator {url:?}: Service {} is in another namespace",
                w.at(),
                service.name()
            ));
        }
        let Some(service_port) =
            seq(at(&service.value, "spec.ports")).iter().find(|p| at(p, "port").and_then(Value::as_u64) == Some(port))
        else {
            problems.push(format!("{}: --coordinator {url:?}: port {port} is not a port of {}", w.at(), service.at()));
            continue;
        };
        // That Service port leads to the port the coordinator listens on.
        let target = service_port.get("targetPort").or_else(|| service_port.get("port")).unwrap_or(&Value::Null);
        for c in &coordinators {
            let listen = c.flag("--listen").as_deref().and_then(port_of);
            let reached = target_port(target, &c.ports());
            if reached.is_none() || reached != listen {
                problems.push(format!(
                    "{}: --coordinator {url:?} reaches container port {reached:?} of {}, which listens on {listen:?}",
                    w.at(),
                    c.at()
                ));
            }
        }
    }
    report("the workers' --coordinator URL", problems);
}

#[test]
fn k8s_one_image_for_every_container() {
    let docs = k8s_docs();
    let mut images: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    for c in containers(&docs) {
        match str_at(c.value, "image") {
            Some(image) => images.entry(image.to_string()).or_default().push(c.at()),
            None => problems.push(format!("{}: no image", c.at())),
        }
    }
    if images.len() != 1 {
        problems.push(format!("ops/k8s/: containers run {} different images: {images:#?}", images.len()));
    }
    report("container images", problems);
}

/// The `--flags` of `foxbase <subcommand> --help`; None when the
/// subcommand does not exist.
fn help_flags(subcommand: &str) -> Option<BTreeSet<String>> {
    let out = Command::new(foxbase()).args([subcommand, "--help"]).output().expect("run foxbase");
    if !out.status.success() {
        return None;
    }
    Some(flags_in(&String::from_utf8_lossy(&out.stdout)))
}

/// The options clap's help lists, one a line: `  -x, --flag <VALUE>  ...` or
/// `      --flag  ...` (flags only named in a description do not count).
fn flags_in(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = match line.split_once(", ") {
                Some((short, rest)) if short.len() == 2 && short.starts_with('-') => rest,
                _ => line,
            };
            let word = line.split_whitespace().next()?;
            (word.starts_with("--") && word.len() > 2).then(|| word.to_string())
        })
        .collect()
}

/// Unknown flags: (subcommand, flag) -> where they are used. Subcommands
/// that do not exist are problems by themselves.
fn check_flags<'a>(
    uses: impl IntoIterator<Item = (String, String, String)>,
    help: &mut BTreeMap<String, Option<BTreeSet<String>>>,
    problems: &'a mut Vec<String>,
) -> &'a mut Vec<String> {
    for (at, subcommand, flag) in uses {
        let known = help.entry(subcommand.clone()).or_insert_with(|| help_flags(&subcommand));
        match known {
            None => problems.push(format!("{at}: `foxbase {subcommand}` is not a subcommand of the binary")),
            Some(flags) if !flags.contains(&flag) => {
                problems.push(format!("{at}: {flag} is not in `foxbase {subcommand} --help`"))
            }
            _ => {}
        }
    }
    problems
}

#[test]
fn k8s_flags_are_in_the_cli_help() {
    let docs = k8s_docs();
    let mut uses = Vec::new();
    let mut problems = Vec::new();
    for c in containers(&docs) {
        let Some(subcommand) = c.subcommand() else {
            problems.push(format!("{}: no args: the first must be a foxbase subcommand", c.at()));
            continue;
        };
        let list = if c.value.get("command").is_some() { "command/args" } else { "args" };
        for arg in c.argv().iter().skip(1).filter(|a| a.starts_with("--")) {
            let flag = arg.split('=').next().unwrap_or(arg).to_string();
            uses.push((format!("{}.{list}", c.at()), subcommand.clone(), flag));
        }
    }
    check_flags(uses, &mut BTreeMap::new(), &mut problems);
    report("flags of ops/k8s/ against the binary", problems);
}

#[test]
fn k8s_args_parse_with_the_cli() {
    // `foxbase ARGS... --help` exits 0 only if clap accepted every argument
    // before --help (flags, their values' types); $(VAR)s are replaced by
    // the manifests' values.
    let docs = k8s_docs();
    let sources = key_sources(&docs);
    let mut problems = Vec::new();
    for c in containers(&docs) {
        let env = environment(&c, &sources);
        let argv: Vec<String> = c
            .argv()
            .iter()
            .map(|a| var_refs(a).iter().fold(a.clone(), |a, v| a.replace(&format!("$({v})"), &env[v.as_str()])))
            .collect();
        if argv.is_empty() {
            continue;
        }
        let out = Command::new(foxbase()).args(&argv).arg("--help").output().expect("run foxbase");
        if !out.status.success() {
            problems.push(format!(
                "{}: `foxbase {} --help` exits {:?}: {}",
                c.at(),
                argv.join(" "),
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("")
            ));
        }
    }
    report("arguments of ops/k8s/ parsed by the binary", problems);
}

/// A Kubernetes quantity (`8Gi`, `500M`, `2`, `250m`) in its unit.
fn quantity(v: &Value) -> Option<f64> {
    let s = scalar(v)?;
    let suffixes: [(&str, f64); 13] = [
        ("Ki", 1024f64),
        ("Mi", 1024f64.powi(2)),
        ("Gi", 1024f64.powi(3)),
        ("Ti", 1024f64.powi(4)),
        ("Pi", 1024f64.powi(5)),
        ("Ei", 1024f64.powi(6)),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
        ("P", 1e15),
        ("E", 1e18),
        ("m", 1e-3),
    ];
    for (suffix, factor) in suffixes {
        if let Some(n) = s.strip_suffix(suffix) {
            return n.parse::<f64>().ok().map(|n| n * factor);
        }
    }
    s.parse().ok()
}

/// A file mode as Kubernetes reads it: a number, or (YAML 1.1, which
/// Kubernetes' parser follows and serde_yaml does not) `0400` in octal.
fn file_mode(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => {
            let digits = s.strip_prefix("0o").or_else(|| s.strip_prefix('0'))?;
            u64::from_str_radix(digits, 8).ok()
        }
        _ => None,
    }
}

/// The memory a worker needs by the capacity plan of docs/distributed.md
/// ("a worker VM with **4 GB** of RAM solves every tier"), in bytes.
fn planned_worker_memory() -> f64 {
    let path = repo().join("docs/distributed.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let marker = "worker VM with **";
    let figure = text
        .split_once(marker)
        .and_then(|(_, rest)| rest.split_once(" GB**"))
        .and_then(|(n, _)| n.trim().parse::<f64>().ok())
        .unwrap_or_else(|| {
            panic!("docs/distributed.md: the capacity plan no longer says \"{marker}N GB** of RAM\"; update this test")
        });
    figure * 1e9
}

#[test]
fn k8s_resources_follow_the_capacity_plan() {
    let docs = k8s_docs();
    let all = containers(&docs);
    let plan = planned_worker_memory();
    let mut problems = Vec::new();
    for c in &all {
        let r = c.value.get("resources");
        for field in ["requests.cpu", "requests.memory", "limits.memory"] {
            if r.and_then(|r| at(r, field)).and_then(quantity).is_none() {
                problems.push(format!("{}.resources.{field}: missing", c.at()));
            }
        }
        let request = r.and_then(|r| at(r, "requests.memory")).and_then(quantity);
        let limit = r.and_then(|r| at(r, "limits.memory")).and_then(quantity);
        if let (Some(request), Some(limit)) = (request, limit) {
            if limit < request {
                problems.push(format!("{}.resources: limits.memory below requests.memory", c.at()));
            }
        }
        // The token: a file of a Secret volume, key `token`, mode 0400.
        if let Some(file) = c.flag("--token-file") {
            match c.volume_of(&file) {
                Some((volume, below)) if volume.get("secret").is_some() => {
                    let secret = volume.get("secret").expect("checked");
                    let items = seq(secret.get("items"));
                    let item = items.iter().find(|i| str_at(i, "path") == Some(below.as_str()));
                    let key = item.map_or(below.as_str(), |i| str_at(i, "key").unwrap_or(""));
                    if key != "token" {
                        problems.push(format!(
                            "{}: --token-file {file} is key {key:?} of its Secret, not \"token\"",
                            c.at()
                        ));
                    }
                    let mode = item.and_then(|i| at(i, "mode")).or_else(|| secret.get("defaultMode"));
                    if mode.and_then(file_mode) != Some(0o400) {
                        problems.push(format!(
                            "{}: --token-file {file}: the Secret volume's mode (items[].mode or defaultMode) is \
                             {mode:?}, not 0400 (decimal 256)",
                            c.at()
                        ));
                    }
                }
                _ => problems.push(format!("{}: --token-file {file} is not in a mounted Secret volume", c.at())),
            }
        }
    }
    for w in workers(&all) {
        let r = w.value.get("resources");
        let memory = r.and_then(|r| at(r, "requests.memory")).and_then(quantity).unwrap_or(0.0);
        if memory < plan {
            problems.push(format!(
                "{}.resources.requests.memory: {memory:.0} bytes, below the capacity plan's {plan:.0} per worker \
                 (docs/distributed.md)",
                w.at()
            ));
        }
        // One CPU per kernel thread.
        let cpu = r.and_then(|r| at(r, "requests.cpu")).and_then(quantity);
        match w.flag("--threads").and_then(|t| t.parse::<f64>().ok()) {
            Some(threads) if cpu != Some(threads) => problems.push(format!(
                "{}.resources.requests.cpu: {cpu:?}, not --threads {threads} (one CPU per thread)",
                w.at()
            )),
            Some(_) => {}
            None => problems.push(format!("{}: args: no --threads (the default is every core of the node)", w.at())),
        }
        // The cache: a volume of its own, sized, and the size requested.
        let Some(cache) = w.flag("--cache") else {
            problems.push(format!("{}: args: no --cache", w.at()));
            continue;
        };
        let size = match w.volume_of(&cache) {
            Some((volume, _)) if volume.get("emptyDir").is_some() => {
                at(volume, "emptyDir.sizeLimit").and_then(quantity)
            }
            Some((volume, _)) if volume.get("ephemeral").is_some() => {
                at(volume, "ephemeral.volumeClaimTemplate.spec.resources.requests.storage").and_then(quantity)
            }
            _ => {
                problems.push(format!("{}: --cache {cache} is not on an emptyDir or ephemeral volume", w.at()));
                continue;
            }
        };
        let Some(size) = size else {
            problems.push(format!("{}: --cache {cache}: its volume has no size (emptyDir.sizeLimit)", w.at()));
            continue;
        };
        let fetched = 1e9; // the largest tier's children, tables and plies (docs/distributed.md)
        if size < fetched {
            problems.push(format!("{}: --cache {cache}: {size:.0} bytes, below the largest tier's 1 GB", w.at()));
        }
        let requested = r.and_then(|r| at(r, "requests.ephemeral-storage")).and_then(quantity).unwrap_or(0.0);
        if w.volume_of(&cache).is_some_and(|(v, _)| v.get("emptyDir").is_some()) && requested < size {
            problems.push(format!(
                "{}.resources.requests.ephemeral-storage: {requested:.0} bytes, below the cache's sizeLimit {size:.0}",
                w.at()
            ));
        }
    }
    // Workers in a Job: as many completions as pods running at once (each
    // exits 0 when the solve is over).
    for doc in docs.iter().filter(|d| d.kind() == "Job") {
        let parallelism = at(&doc.value, "spec.parallelism").and_then(Value::as_u64);
        let completions = at(&doc.value, "spec.completions").and_then(Value::as_u64);
        if parallelism != completions {
            problems.push(format!(
                "{}: spec.parallelism {parallelism:?} and spec.completions {completions:?} differ",
                doc.at()
            ));
        }
    }
    // Prometheus: the scrape annotation's port is the --metrics-listen port.
    for c in &all {
        let annotations = c.pod_annotations();
        let Some(port) = annotations.get("prometheus.io/port") else { continue };
        let listen = c.flag("--metrics-listen").as_deref().and_then(port_of).map(|p| p.to_string());
        if listen.as_ref() != Some(port) {
            problems.push(format!(
                "{}: {}.annotations prometheus.io/port {port} is not the --metrics-listen port {listen:?}",
                c.at(),
                c.pod_metadata
            ));
        }
        if !c.ports().iter().any(|(_, p)| p.to_string() == *port) {
            problems.push(format!("{}: prometheus.io/port {port} is not a container port", c.at()));
        }
    }
    report("resources and volumes", problems);
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(repo().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

fn unit_files() -> Vec<PathBuf> {
    let dir = repo().join("ops/systemd");
    let mut units: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "service"))
        .collect();
    units.sort();
    assert!(!units.is_empty(), "ops/systemd/ has no .service files");
    units
}

#[test]
fn systemd_units_verify() {
    let analyze = Path::new("/usr/bin/systemd-analyze");
    assert!(
        analyze.exists(),
        "/usr/bin/systemd-analyze is not installed: this test runs `systemd-analyze verify ops/systemd/*.service` \
         (Debian/Ubuntu: apt-get install systemd)"
    );
    let units: Vec<PathBuf> =
        unit_files().iter().map(|u| u.strip_prefix(repo()).expect("in the repo").into()).collect();
    let out =
        Command::new(analyze).arg("verify").args(&units).current_dir(repo()).output().expect("run systemd-analyze");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // The binary is installed only where the units run.
    let unexpected: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| !l.contains("Command /usr/local/bin/foxbase is not executable"))
        .collect();
    assert!(
        unexpected.is_empty(),
        "systemd-analyze verify {}:\n{}",
        units.iter().map(|u| u.display().to_string()).collect::<Vec<_>>().join(" "),
        unexpected.join("\n")
    );
}

/// A unit file's `Key=value` lines, continuation lines joined.
fn unit_settings(text: &str) -> Vec<(String, String)> {
    let joined = text.replace("\\\n", " ");
    joined
        .lines()
        .filter(|l| !l.starts_with(['#', ';', '[']))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// `(subcommand, flag)` of every `foxbase SUBCOMMAND --flag ...` in a command line.
fn foxbase_flags(command: &str) -> Vec<(String, String)> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let mut uses = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if !word.ends_with("/foxbase") {
            continue;
        }
        let Some(subcommand) = words.get(i + 1) else { continue };
        for arg in &words[i + 2..] {
            if arg.contains(['>', ';', '|', '&']) || arg.ends_with("/foxbase") {
                break;
            }
            if let Some(flag) = arg.trim_matches(['\'', '"']).strip_prefix("--") {
                uses.push((subcommand.to_string(), format!("--{}", flag.split('=').next().unwrap_or(flag))));
            }
            if arg.ends_with('\'') {
                break;
            }
        }
    }
    uses
}

/// The assignments of an `Environment=` value: `"A=x y" B=z` gives
/// (A, `x y`) and (B, `z`).
fn environment_assignments(value: &str) -> Vec<(String, String)> {
    let mut assignments = Vec::new();
    let mut rest = value.trim();
    while !rest.is_empty() {
        let (word, tail) = match rest.strip_prefix('"') {
            Some(quoted) => quoted.split_once('"').unwrap_or((quoted, "")),
            None => rest.split_once(char::is_whitespace).unwrap_or((rest, "")),
        };
        if let Some((name, value)) = word.split_once('=') {
            assignments.push((name.to_string(), value.to_string()));
        }
        rest = tail.trim_start();
    }
    assignments
}

/// Whether a command line runs `foxbase coordinator`.
fn runs_coordinator(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    words.windows(2).any(|w| w[0].ends_with("/foxbase") && w[1] == "coordinator")
}

#[test]
fn systemd_units_use_the_object_store_and_known_flags() {
    let mut problems = Vec::new();
    let mut uses = Vec::new();
    for unit in unit_files() {
        let file = unit.strip_prefix(repo()).expect("in the repo").display().to_string();
        let settings = unit_settings(&read(&file));
        let has = |k: &str, v: &str| settings.iter().any(|(key, value)| key == k && value == v);
        if !has("EnvironmentFile", "/etc/foxbase/s3.env") {
            problems.push(format!("{file}: no EnvironmentFile=/etc/foxbase/s3.env (the store's credentials)"));
        }
        // systemd splits `$VAR`, a word of its own, at whitespace; `${VAR}` stays one argument.
        let spaced: Vec<String> = settings
            .iter()
            .filter(|(key, _)| key == "Environment")
            .flat_map(|(_, value)| environment_assignments(value))
            .filter(|(_, value)| value.contains(char::is_whitespace))
            .map(|(name, _)| name)
            .collect();
        for (key, value) in &settings {
            if key.starts_with("Exec") {
                uses.extend(foxbase_flags(value).into_iter().map(|(s, f)| (format!("{file}: {key}"), s, f)));
                for name in &spaced {
                    if value.split_whitespace().any(|w| w == format!("${name}")) {
                        problems.push(format!(
                            "{file}: {key}: ${name} is split at its spaces into several arguments; write ${{{name}}}"
                        ));
                    }
                }
            }
            if key == "Environment" && value.starts_with("STORE=") && !value.starts_with("STORE=s3://") {
                problems.push(format!("{file}: Environment={value}: STORE is not an s3:// URL"));
            }
            if value.contains("remote-fs") || value.contains("/mnt/") {
                problems.push(format!("{file}: {key}={value}: a shared filesystem, not the object store"));
            }
        }
    }
    if !uses.iter().any(|(_, s, _)| s == "coordinator") || !uses.iter().any(|(_, s, _)| s == "worker") {
        problems.push(format!("ops/systemd/: no `foxbase coordinator` and `foxbase worker` command lines: {uses:?}"));
    }
    check_flags(uses, &mut BTreeMap::new(), &mut problems);
    report("ops/systemd/", problems);
}

#[test]
fn cloud_init_worker_uses_the_object_store() {
    let file = "ops/cloud-init/worker.yaml";
    let text = read(file);
    let mut problems = Vec::new();
    if !text.starts_with("#cloud-config\n") {
        problems.push(format!("{file}: the first line is not #cloud-config"));
    }
    let config: Value = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{file}: not YAML: {e}"));
    let files = seq(config.get("write_files"));
    let find = |path: &str| files.iter().find(|f| str_at(f, "path") == Some(path));
    for secret in ["/etc/foxbase/token", "/etc/foxbase/s3.env"] {
        match find(secret) {
            None => problems.push(format!("{file}: write_files has no {secret}")),
            Some(f) if str_at(f, "permissions") != Some("0600") => {
                problems.push(format!("{file}: write_files {secret}: permissions are not \"0600\""))
            }
            _ => {}
        }
    }
    if let Some(env) = find("/etc/foxbase/s3.env").and_then(|f| str_at(f, "content")) {
        for var in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"] {
            if !env.lines().any(|l| l.starts_with(&format!("{var}=FILL"))) {
                problems.push(format!("{file}: /etc/foxbase/s3.env has no {var}=FILL... line"));
            }
        }
    }
    // The unit it installs is ops/systemd/foxbase-worker.service, verbatim.
    let unit = read("ops/systemd/foxbase-worker.service");
    match find("/etc/systemd/system/foxbase-worker.service").and_then(|f| str_at(f, "content")) {
        Some(content) if content == unit => {}
        Some(_) => problems.push(format!(
            "{file}: write_files /etc/systemd/system/foxbase-worker.service differs from \
             ops/systemd/foxbase-worker.service"
        )),
        None => problems.push(format!("{file}: write_files has no /etc/systemd/system/foxbase-worker.service")),
    }
    let commands: Vec<String> = seq(config.get("runcmd")).iter().filter_map(scalar).collect();
    for command in &commands {
        if command.contains("mount") || command.contains("nfs") {
            problems.push(format!("{file}: runcmd {command:?}: a shared filesystem, not the object store"));
        }
    }
    if !commands.iter().any(|c| c.contains("systemctl enable --now foxbase-worker")) {
        problems.push(format!("{file}: runcmd does not start foxbase-worker"));
    }
    report(file, problems);
}

/// The `--flags` of an argument list (`--flag=VALUE` as `--flag`).
fn flag_names<'a>(args: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    args.into_iter()
        .map(|a| a.trim_matches(['\'', '"']))
        .filter(|a| a.starts_with("--"))
        .map(|a| a.split('=').next().unwrap_or(a).to_string())
        .collect()
}

#[test]
fn coordinators_resume_on_restart() {
    // Kubernetes and systemd restart the coordinator with the command line
    // of its first start, and keep no state outside the store that could
    // tell the two apart: only --resume-if-journaled suits both (a new run
    // without --resume refuses the journal of the run it should continue;
    // --resume refuses a store with no journal yet).
    let mut problems = Vec::new();
    let mut check = |at: String, flags: Vec<String>| {
        if !flags.iter().any(|f| f == "--resume-if-journaled") {
            problems.push(format!(
                "{at}: `foxbase coordinator` without --resume-if-journaled: a restart would not resume the run"
            ));
        }
        if flags.iter().any(|f| f == "--resume") {
            problems.push(format!("{at}: --resume: the first start, with no journal yet, would be refused"));
        }
    };
    let docs = k8s_docs();
    let all = containers(&docs);
    let coordinators = coordinators(&all);
    for c in &coordinators {
        check(c.at(), flag_names(c.argv().iter().skip(1).map(String::as_str)));
    }
    let mut in_units = 0;
    for unit in unit_files() {
        let file = unit.strip_prefix(repo()).expect("in the repo").display().to_string();
        for (key, value) in unit_settings(&read(&file)) {
            if !key.starts_with("Exec") || !runs_coordinator(&value) {
                continue;
            }
            in_units += 1;
            let flags = foxbase_flags(&value).into_iter().filter(|(s, _)| s == "coordinator").map(|(_, f)| f);
            check(format!("{file}: {key}"), flags.collect());
        }
    }
    if coordinators.is_empty() {
        problems.push("ops/k8s/: no container runs `foxbase coordinator`".into());
    }
    if in_units == 0 {
        problems.push("ops/systemd/: no Exec line runs `foxbase coordinator`".into());
    }
    report("the coordinator's restarts", problems);
}
