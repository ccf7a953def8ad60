//! Where a store or tablebase is: a directory or `s3://BUCKET/PREFIX`.

use std::path::PathBuf;

/// A parsed table location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreUrl {
    /// A directory on this machine (a plain path or `file:///DIR`).
    Dir(PathBuf),
    /// A folder of a bucket: objects are `PREFIX/KEY` (`KEY` alone when the
    /// prefix is empty). The prefix has no leading or trailing `/`.
    Bucket { bucket: String, prefix: String },
}

/// A location that is not a directory nor a bucket this build can open.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("'{url}': scheme '{scheme}' is not supported (a directory, file:///DIR or s3://BUCKET/PREFIX)")]
    Scheme { url: String, scheme: String },
    #[error("'{url}': {problem}")]
    Malformed { url: String, problem: &'static str },
}

impl StoreUrl {
    /// Parses a location as given on the command line or sent by a coordinator.
    pub fn parse(url: &str) -> Result<StoreUrl, UrlError> {
        let malformed = |problem| UrlError::Malformed { url: url.to_string(), problem };
        if url.is_empty() {
            return Err(malformed("an empty location"));
        }
        let Some((scheme, rest)) = url.split_once("://") else {
            return Ok(StoreUrl::Dir(PathBuf::from(url)));
        };
        match scheme {
            "file" if rest.starts_with('/') => Ok(StoreUrl::Dir(PathBuf::from(rest))),
            "file" => Err(malformed("a file:// URL takes an absolute path (file:///DIR)")),
            "s3" => {
                let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
                let prefix = prefix.trim_matches('/');
                let bucket_ok = (3..=63).contains(&bucket.len())
                    && bucket.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
                if !bucket_ok {
                    return Err(malformed(
                        "the bucket name must be 3 to 63 lower-case letters, digits, '-' or '.' (s3://BUCKET/PREFIX)",
                    ));
                }
                if prefix.split('/').any(|p| p == "." || p == "..") || prefix.contains("//") {
                    return Err(malformed("the prefix may not have empty, '.' or '..' parts"));
                }
                Ok(StoreUrl::Bucket { bucket: bucket.to_string(), prefix: prefix.to_string() })
            }
            _ => Err(UrlError::Scheme { url: url.to_string(), scheme: scheme.to_string() }),
        }
    }

    /// Whether this is a bucket.
    pub fn is_bucket(&self) -> bool {
        matches!(self, StoreUrl::Bucket { .. })
    }
}

impl std::fmt::Display for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreUrl::Dir(path) => write!(f, "{}", path.display()),
            StoreUrl::Bucket { bucket, prefix } if prefix.is_empty() => write!(f, "s3://{bucket}"),
            StoreUrl::Bucket { bucket, prefix } => write!(f, "s3://{bucket}/{prefix}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_parse_to_directories_or_buckets() {
        let bucket = |b: &str, p: &str| StoreUrl::Bucket { bucket: b.into(), prefix: p.into() };
        assert_eq!(StoreUrl::parse("tables").unwrap(), StoreUrl::Dir("tables".into()));
        assert_eq!(StoreUrl::parse("/data/t").unwrap(), StoreUrl::Dir("/data/t".into()));
        assert_eq!(StoreUrl::parse("file:///data/t").unwrap(), StoreUrl::Dir("/data/t".into()));
        assert_eq!(StoreUrl::parse("s3://foxbase").unwrap(), bucket("foxbase", ""));
        assert_eq!(StoreUrl::parse("s3://foxbase/").unwrap(), bucket("foxbase", ""));
        assert_eq!(StoreUrl::parse("s3://fox.base/runs/a/").unwrap(), bucket("fox.base", "runs/a"));
        assert_eq!(bucket("foxbase", "runs/a").to_string(), "s3://foxbase/runs/a");
        assert_eq!(bucket("foxbase", "").to_string(), "s3://foxbase");
        for (bad, says) in [
            ("", "empty"),
            ("file://rel", "absolute path"),
            ("s3://", "bucket name"),
            ("s3://Big/x", "bucket name"),
            ("s3://ab/x", "bucket name"),
            ("s3://foxbase/a/../b", "'..'"),
            ("s3://foxbase/a//b", "empty"),
            ("http://example.com/t", "scheme 'http'"),
        ] {
            let err = StoreUrl::parse(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
