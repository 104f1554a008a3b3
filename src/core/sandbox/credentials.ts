// The maintained list of credential locations hidden from every sandboxed command (DESIGN
// §19). A prompt injection that runs `cat ~/.npmrc` inside the sandbox sends the token to the
// model, and from there anywhere: so whatever holds a login, a token or a key is not visible
// at all, as if it did not exist. Paths are relative to the user's home; a missing one costs
// nothing. `sandbox.hide` adds more; `sandbox.read: "project"` hides everything outside the
// project and the system folders instead.
//
// Keep this list the one place: the bwrap and Seatbelt policies, the "blocked by the sandbox"
// note and the README all read it from here.

/** Credential files and folders in the user's home (`~`-relative), one concern per group. */
export const HIDDEN_CREDENTIALS: readonly string[] = [
  // Keys and generic secret stores.
  '.ssh',
  '.gnupg',
  '.password-store',
  '.local/share/keyrings',
  '.netrc',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  // Git hosts and their command-line tools.
  '.git-credentials',
  '.config/git/credentials',
  '.config/gh',
  '.config/hub',
  '.config/glab-cli',
  // Coding assistants (their logins and API keys).
  '.claude/.credentials.json',
  '.claude.json',
  '.codex/auth.json',
  '.local/share/opencode/auth.json',
  '.config/opencode',
  '.config/github-copilot',
  // Package registries.
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.config/pip/pip.conf',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.nuget/NuGet/NuGet.Config',
  '.composer/auth.json',
  '.config/composer/auth.json',
  // Clouds, clusters and containers.
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.oci',
  '.config/doctl',
  '.terraform.d/credentials.tfrc.json',
  '.docker/config.json',
  '.config/containers/auth.json',
  '.fly',
  '.config/rclone',
  '.s3cfg',
  '.boto',
  // Browser profiles (cookies and saved passwords) and mail.
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.thunderbird',
  'snap/firefox',
  'snap/chromium',
  'Library/Keychains',
  'Library/Cookies',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
  'Library/Application Support/BraveSoftware',
  'Library/Application Support/Microsoft Edge',
];

/** System paths hidden from every sandboxed command: sockets that would run code outside it. */
export const HIDDEN_SYSTEM_PATHS: readonly string[] = ['/run/docker.sock', '/var/run/docker.sock', '/run/podman', '/var/run/podman'];
