/**
 * The second wall's system-call filter: a classic-BPF seccomp program that bubblewrap installs
 * (`--seccomp <fd>`) right before it starts the walled command, so the command and everything it
 * starts run under it. The namespaces already take the network, the file system and the other
 * processes away; the filter takes away the kernel interfaces a process that escaped isolated-vm
 * would use to attack the kernel or a sibling, which namespaces do not cover:
 *
 * - tracing and reading other processes: `ptrace`, `process_vm_readv/writev`, `kcmp`;
 * - the kernel's large, bug-prone surfaces: `bpf`, `perf_event_open`, `userfaultfd`, `io_uring_*`,
 *   the keyring (`keyctl`, `add_key`, `request_key`);
 * - remaking the sandbox: `mount` and the new mount API, `umount2`, `pivot_root`, `chroot`,
 *   `unshare`, `setns`, `open_by_handle_at` (escapes a bind mount), `name_to_handle_at`;
 * - the machine: modules, kexec, `reboot`, swap, `acct`, `quotactl`, `syslog`, `iopl`/`ioperm`;
 * - sockets other than `AF_UNIX` (the worker's IPC channel is a socket pair its parent made) and
 *   `AF_NETLINK` (libuv lists interfaces through it, and Node's error paths read them; in the
 *   wall's empty network namespace it sees only a loopback that is down, as an unprivileged user).
 *
 * Each is refused with `EPERM` (`io_uring_setup` with `ENOSYS`, which libuv takes as "no io_uring"
 * and falls back from). A system call of another ABI (x32, or a 32-bit `int 0x80` entry, whose
 * audit architecture differs) kills the process: the table below is x86-64's. `execve` cannot be
 * refused by this filter — bubblewrap loads it before it executes the command — so a second,
 * smaller filter ({@link noExecFilter}) refuses `execve` and `execveat` and is installed by the
 * process itself right after its own start (postexec.ts); where that cannot be done (the checker, a
 * static Go binary; the sources' worker, whose tsx starts esbuild) what a walled process may execute
 * is bounded by its file system (its own binary and nothing else).
 *
 * Hand-written rather than generated with libseccomp: no npm package builds a filter without a
 * native build, and the program is 56 instructions. Only x86-64 has a table; elsewhere there is no
 * filter and the wall's status says so. Decision record 032.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** x86-64 system-call numbers refused with EPERM (asm/unistd_64.h). */
export const DENIED_SYSCALLS: Readonly<Record<string, number>> = {
  ptrace: 101,
  syslog: 103,
  vhangup: 153,
  pivot_root: 155,
  chroot: 161,
  acct: 163,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  iopl: 172,
  ioperm: 173,
  init_module: 175,
  delete_module: 176,
  quotactl: 179,
  lookup_dcookie: 212,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  unshare: 272,
  perf_event_open: 298,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  setns: 308,
  process_vm_readv: 310,
  process_vm_writev: 311,
  kcmp: 312,
  finit_module: 313,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
};

const NR_SOCKET = 41;
const NR_EXECVE = 59;
const NR_EXECVEAT = 322;
const NR_IO_URING_SETUP = 425;
const AF_UNIX = 1;
const AF_NETLINK = 16;
const AUDIT_ARCH_X86_64 = 0xc000003e;
const X32_SYSCALL_BIT = 0x40000000;

// struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6].
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16; // little-endian: the low 32 bits of args[0]

// Classic BPF opcodes.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const RET_K = 0x06;

const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;

type Instruction = readonly [code: number, jt: number, jf: number, k: number];

/** Both filters' start: other ABIs (i386, x32) kill the process; then the call's number is loaded. */
const X86_64_ONLY: readonly Instruction[] = [
  [LD_W_ABS, 0, 0, OFFSET_ARCH],
  [JEQ_K, 1, 0, AUDIT_ARCH_X86_64],
  [RET_K, 0, 0, RET_KILL_PROCESS],
  [LD_W_ABS, 0, 0, OFFSET_NR],
  [JSET_K, 0, 1, X32_SYSCALL_BIT],
  [RET_K, 0, 0, RET_KILL_PROCESS],
];

/** The filter's instructions for x86-64. */
function program(): Instruction[] {
  const denied = Object.values(DENIED_SYSCALLS);
  const out: Instruction[] = [...X86_64_ONLY];
  // One comparison per refused call, each jumping to the shared EPERM return after the list.
  denied.forEach((nr, i) => {
    const toEperm = denied.length - i - 1 + 4; // past the rest of the list and the 4 below
    out.push([JEQ_K, toEperm, 0, nr]);
  });
  out.push(
    [JEQ_K, 0, 1, NR_IO_URING_SETUP],
    [RET_K, 0, 0, RET_ERRNO | ENOSYS],
    [JEQ_K, 2, 0, NR_SOCKET],
    [RET_K, 0, 0, RET_ALLOW],
    [RET_K, 0, 0, RET_ERRNO | EPERM],
    // socket(family, ...): AF_UNIX and AF_NETLINK only.
    [LD_W_ABS, 0, 0, OFFSET_ARG0_LOW],
    [JEQ_K, 1, 0, AF_UNIX],
    [JEQ_K, 0, 1, AF_NETLINK],
    [RET_K, 0, 0, RET_ALLOW],
    [RET_K, 0, 0, RET_ERRNO | EAFNOSUPPORT],
  );
  return out;
}

/** The instructions of the filter a process installs on itself after its start: no more `execve`. */
function noExecProgram(): Instruction[] {
  return [
    ...X86_64_ONLY,
    [JEQ_K, 2, 0, NR_EXECVE],
    [JEQ_K, 1, 0, NR_EXECVEAT],
    [RET_K, 0, 0, RET_ALLOW],
    [RET_K, 0, 0, RET_ERRNO | EPERM],
  ];
}

/** `instructions` as the kernel reads them: an array of `struct sock_filter`, native byte order. */
function encode(instructions: readonly Instruction[]): Buffer {
  const out = Buffer.alloc(instructions.length * 8);
  instructions.forEach(([code, jt, jf, k], i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}

/**
 * The filter as bubblewrap reads it, or undefined where there is no table for this machine
 * (`arch`, as `process.arch` names it).
 */
export function seccompFilter(arch: string = process.arch): Buffer | undefined {
  return arch === 'x64' ? encode(program()) : undefined;
}

/**
 * The filter that refuses `execve` and `execveat` with `EPERM` (and kills other ABIs), for a process
 * to install on itself once it has started; undefined where there is no table for this machine.
 */
export function noExecFilter(arch: string = process.arch): Buffer | undefined {
  return arch === 'x64' ? encode(noExecProgram()) : undefined;
}

const written = new Map<string, string | undefined>();
let dir: string | undefined;

/** A file holding `filter` under `name` (written once per process, removed at its exit). */
function filterFile(name: string, filter: Buffer | undefined): string | undefined {
  if (written.has(name)) return written.get(name);
  let file: string | undefined;
  if (filter !== undefined) {
    if (dir === undefined) {
      const created = mkdtempSync(join(tmpdir(), 'isocode-seccomp-'));
      process.once('exit', () => rmSync(created, { recursive: true, force: true }));
      dir = created;
    }
    file = join(dir, name);
    writeFileSync(file, filter, { mode: 0o444 });
  }
  written.set(name, file);
  return file;
}

/**
 * A file holding {@link seccompFilter}, for a launcher to open as bubblewrap's `--seccomp`
 * descriptor; undefined where there is no filter.
 */
export function seccompFile(): string | undefined {
  return filterFile('filter.bpf', seccompFilter());
}

/** A file holding {@link noExecFilter}, bound into the wall for postexec.ts; undefined where none. */
export function noExecFile(): string | undefined {
  return filterFile('no-exec.bpf', noExecFilter());
}
