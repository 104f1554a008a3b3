// A real Docker Engine API for tests: Podman serving it on a socket in a temp folder, and a
// small image made without a registry (`podman import` of a root filesystem holding a static
// busybox; the tarball cached by content under the temp dir), in a storage of its own. Where
// the machine cannot run containers at all (no podman, runc or busybox), `startPodman` says why
// instead, for the test to skip.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PodmanService {
  /** `unix://…/podman.sock` */
  url: string;
  image: string;
  stop(): Promise<void>;
}

const RUNC = ['/usr/sbin/runc', '/usr/bin/runc'].find((path) => existsSync(path));
const BUSYBOX = '/bin/busybox';

function containersConf(dir: string): string {
  const file = join(dir, 'containers.conf');
  writeFileSync(
    file,
    `[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\n[engine]\nruntime = "runc"\n[engine.runtimes]\nrunc = ["${RUNC}"]\n`,
  );
  return file;
}

/** The root filesystem's tarball, made once per busybox build and kept under the temp dir. */
function rootfsTarball(): { tarball: string; digest: string } {
  const digest = createHash('sha256').update(readFileSync(BUSYBOX)).digest('hex').slice(0, 12);
  const cache = join(tmpdir(), 'opencode-ink-test-images');
  const tarball = join(cache, `busybox-rootfs-${digest}.tar`);
  if (existsSync(tarball)) return { tarball, digest };
  mkdirSync(cache, { recursive: true });
  const root = mkdtempSync(join(tmpdir(), 'oc-rootfs-'));
  try {
    for (const dir of ['bin', 'tmp', 'etc', 'root', 'proc', 'dev', 'sys']) mkdirSync(join(root, dir));
    copyFileSync(BUSYBOX, join(root, 'bin/busybox'));
    const applets = spawnSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).stdout.split('\n').filter((name) => name && name !== 'busybox');
    for (const applet of applets) symlinkSync('busybox', join(root, 'bin', applet));
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    // Written aside and renamed: another test file may be making the same one.
    const partial = `${tarball}.${process.pid}`;
    const packed = spawnSync('tar', ['-C', root, '-cf', partial, '.']);
    if (packed.status !== 0) throw new Error(`tar failed: ${packed.stderr}`);
    renameSync(partial, tarball);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { tarball, digest };
}

function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Podman serving the Docker API, or why this machine cannot run containers. */
export async function startPodman(): Promise<PodmanService | string> {
  if (spawnSync('podman', ['--version']).status !== 0) return 'podman is not installed';
  if (!RUNC) return 'runc is not installed';
  if (!existsSync(BUSYBOX)) return 'busybox-static is not installed (/bin/busybox)';
  const dir = mkdtempSync(join(tmpdir(), 'oc-podman-'));
  const env = { ...process.env, CONTAINERS_CONF: containersConf(dir) };
  // Storage of its own: each service is a host of its own, whose containers no other test sees.
  // Its run-time state in memory, where Podman keeps it by default (/run): on a disk it slows
  // every container start and exec by its writes.
  const runroot = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/oc-podman-run-') : join(dir, 'runroot');
  // OC_PODMAN_STORAGE_DIR puts the images and containers elsewhere (the container bench, to tell
  // this program's cost from the disk's).
  const graphroot = process.env.OC_PODMAN_STORAGE_DIR ? mkdtempSync(join(process.env.OC_PODMAN_STORAGE_DIR, 'oc-podman-storage-')) : join(dir, 'storage');
  const storage = ['--root', graphroot, '--runroot', runroot];
  const { tarball, digest } = rootfsTarball();
  const image = `localhost/opencode-ink-test-busybox:${digest}`;
  const imported = spawnSync('podman', [...storage, 'import', '--change', 'ENV PATH=/bin', tarball, image], { env, encoding: 'utf8' });
  if (imported.status !== 0) throw new Error(`podman import failed: ${imported.stderr}`);
  const socket = join(dir, 'podman.sock');
  const service: ChildProcess = spawn('podman', [...storage, 'system', 'service', '--time=0', `unix://${socket}`], { env, stdio: 'ignore' });
  const deadline = Date.now() + 15_000;
  while (!(existsSync(socket) && (await socketAnswers(socket)))) {
    if (Date.now() > deadline || service.exitCode !== null) {
      service.kill('SIGKILL');
      return `podman system service did not start (exit ${service.exitCode})`;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `unix://${socket}`,
    image,
    stop: async () => {
      const ended = new Promise((resolve) => service.once('exit', resolve));
      service.kill('SIGTERM');
      await ended;
      // Whatever a failed test left in this storage goes with it.
      spawnSync('podman', [...storage, 'rm', '--all', '--force'], { env, stdio: 'ignore' });
      removeStorage(graphroot);
      removeStorage(dir);
      try {
        rmSync(runroot, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      } catch {
        // A mount an exec's helper still holds: left in memory until the machine restarts.
      }
    },
  };
}

/**
 * Removes a Podman storage folder. Podman mounts its overlay folder on itself, and an exec's
 * helper may still hold it for a moment after the service ended (EBUSY): unmount it lazily and
 * try again; a folder that still cannot go is left in the temp dir rather than failing the tests.
 */
function removeStorage(graphroot: string): void {
  try {
    rmSync(graphroot, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  } catch {
    spawnSync('umount', ['-l', join(graphroot, 'overlay')], { stdio: 'ignore' });
    try {
      rmSync(graphroot, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch {
      // Left behind in the temp dir; nothing of it is read again.
    }
  }
}
