// Checkpoints (DESIGN §18): snapshots of the project's files in a shadow git repository, and
// the three-way restore that puts them back without overwriting anyone's later work.
export { NO_GIT_NOTICE, projectKey, ShadowRepo, SNAPSHOT_WALK_MS, SnapshotTimeout, type PathChange, type ShadowRepoOptions, type Side } from './shadow-repo.js';
export { restoreFiles, type RestoreResult } from './restore.js';
export { diffBetween, diffStat, MAX_EDIT_LENGTH, type DiffHunk, type DiffStat, type FileDiff } from './session-diff.js';
