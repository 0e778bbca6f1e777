//! Where the config file is when the command line names none: `$MESHAI_CONFIG`, then
//! `./meshai.toml`, then the user's XDG config folder, then `/etc/meshai/config.toml`.
//!
//! `--config` and `$MESHAI_CONFIG` are taken as given, existing or not: a name the user chose
//! must not silently fall through to another file. The rest is a search, first existing file
//! wins. Pure functions of the environment and a file test, so every case is a table row.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::ConfigError;

/// The variable that names the config file.
pub(crate) const ENV: &str = "MESHAI_CONFIG";
/// The config in the current folder (what `meshai init --output meshai.toml` writes).
pub(crate) const LOCAL: &str = "./meshai.toml";
/// The system-wide config (what the package installs and the service reads).
pub(crate) const SYSTEM: &str = "/etc/meshai/config.toml";

/// Looks up an environment variable; `std::env::var_os` in the binary.
pub(crate) type Env<'a> = &'a dyn Fn(&str) -> Option<OsString>;

/// An XDG base folder: `$var` when it is set to an absolute path (the spec ignores relative
/// ones), otherwise `$HOME/fallback`; `None` without either.
pub(crate) fn xdg_dir(env: Env<'_>, var: &str, fallback: &str) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    set(var)
        .filter(|p| p.is_absolute())
        .or_else(|| set("HOME").map(|home| home.join(fallback)))
}

/// The user's config file: `$XDG_CONFIG_HOME/meshai/config.toml` or
/// `~/.config/meshai/config.toml`.
pub(crate) fn user_config(env: Env<'_>) -> Option<PathBuf> {
    xdg_dir(env, "XDG_CONFIG_HOME", ".config").map(|d| d.join("meshai").join("config.toml"))
}

/// The files searched when neither `--config` nor `$MESHAI_CONFIG` names one, in order.
pub(crate) fn search_path(env: Env<'_>) -> Vec<PathBuf> {
    let mut path = vec![PathBuf::from(LOCAL)];
    path.extend(user_config(env));
    path.push(PathBuf::from(SYSTEM));
    path
}

/// The config file to read: `explicit` (`--config`), else `$MESHAI_CONFIG`, else the first
/// file of [`search_path`] that `exists`. None found: an error that lists where it looked and
/// says how to make one.
pub fn locate(
    explicit: Option<&Path>,
    env: Env<'_>,
    exists: &dyn Fn(&Path) -> bool,
) -> Result<PathBuf, ConfigError> {
    if let Some(path) = explicit {
        return Ok(path.to_path_buf());
    }
    if let Some(path) = env(ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let looked = search_path(env);
    match looked.iter().find(|p| exists(p)) {
        Some(found) => Ok(found.clone()),
        None => Err(ConfigError::NotFound { looked }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn search_order() {
        type Case = (
            Option<&'static str>,
            &'static [(&'static str, &'static str)],
            &'static [&'static str],
            Result<&'static str, ()>,
        );
        let home: &[(&str, &str)] = &[("HOME", "/home/pi")];
        let cases: &[Case] = &[
            // --config wins, existing or not.
            (
                Some("/x.toml"),
                &[(ENV, "/env.toml")],
                &[SYSTEM],
                Ok("/x.toml"),
            ),
            // Then $MESHAI_CONFIG, existing or not.
            (None, &[(ENV, "/env.toml")], &[SYSTEM], Ok("/env.toml")),
            (None, &[(ENV, "")], &[SYSTEM], Ok(SYSTEM)),
            // Then the search: ./meshai.toml first...
            (
                None,
                home,
                &[LOCAL, "/home/pi/.config/meshai/config.toml", SYSTEM],
                Ok(LOCAL),
            ),
            // ... then the user's config folder ...
            (
                None,
                home,
                &["/home/pi/.config/meshai/config.toml", SYSTEM],
                Ok("/home/pi/.config/meshai/config.toml"),
            ),
            (
                None,
                &[("HOME", "/home/pi"), ("XDG_CONFIG_HOME", "/cfg")],
                &[
                    "/cfg/meshai/config.toml",
                    "/home/pi/.config/meshai/config.toml",
                ],
                Ok("/cfg/meshai/config.toml"),
            ),
            // A relative XDG_CONFIG_HOME is ignored, as the spec says.
            (
                None,
                &[("HOME", "/home/pi"), ("XDG_CONFIG_HOME", "cfg")],
                &[
                    "cfg/meshai/config.toml",
                    "/home/pi/.config/meshai/config.toml",
                ],
                Ok("/home/pi/.config/meshai/config.toml"),
            ),
            // ... then /etc.
            (None, home, &[SYSTEM], Ok(SYSTEM)),
            (None, &[], &[SYSTEM], Ok(SYSTEM)),
            (None, home, &[], Err(())),
        ];
        for (explicit, vars, files, want) in cases {
            let env = env_of(vars);
            let exists = |p: &Path| files.iter().any(|f| Path::new(f) == p);
            let got = locate(explicit.map(Path::new), &env, &exists);
            match (got, want) {
                (Ok(p), Ok(w)) => assert_eq!(p, Path::new(w), "{explicit:?} {vars:?} {files:?}"),
                (Err(ConfigError::NotFound { .. }), Err(())) => {}
                (got, want) => {
                    panic!("{explicit:?} {vars:?} {files:?}: got {got:?}, want {want:?}")
                }
            }
        }
    }

    #[test]
    fn not_found_lists_every_place_and_the_fix() {
        let env = env_of(&[("HOME", "/home/pi")]);
        let err = locate(None, &env, &|_| false).unwrap_err().to_string();
        assert_eq!(
            err,
            "no config file found (looked for $MESHAI_CONFIG, ./meshai.toml, \
             /home/pi/.config/meshai/config.toml, /etc/meshai/config.toml): write one for this \
             machine with `meshai init`, or name one with --config FILE"
        );
    }
}
