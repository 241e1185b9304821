/*
 * Copyright (c) 2026 the FFmpeg DNN CUDA fork developers
 *
 * This file is part of FFmpeg.
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * FFmpeg is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with FFmpeg; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
 */

/**
 * @file
 * Many ffmpeg runs for the price of one start (tests/dnn/run_mutants.py).
 *
 * An ffmpeg linked with LibTorch spends about 0.7 s starting: the dynamic
 * linker maps and relocates LibTorch's and CUDA's libraries and runs their
 * static constructors.  Preloaded (LD_PRELOAD) into ffmpeg with
 * DNN_FORK_JOBS set, this library takes the place of __libc_start_main,
 * which runs after all that and before ffmpeg's main: it reads the jobs
 * (argument lists) from DNN_FORK_JOBS and forks a child per job, which goes
 * on into ffmpeg's main with that job's arguments.  Each child is a whole
 * ffmpeg process of its own: a crash, a hang or a runaway allocation ends
 * it alone, and is seen here as its wait status, its peak resident memory
 * (wait4's ru_maxrss) and its wall time.  Without DNN_FORK_JOBS the library
 * does nothing.
 *
 *   DNN_FORK_JOBS      a file of jobs, one per line, fields separated by tabs:
 *                      ID  STDOUT  STDERR  TMPDIR  ARG...  (TMPDIR: "-", or a
 *                      folder mounted on /tmp for that child, where possible;
 *                      then the files it reads must not lie under /tmp)
 *   DNN_FORK_RESULTS   the file to write, one line per job:
 *                      ID  exit|signal|timeout  CODE  MAXRSS_KIB  WALL_MS,
 *                      after a first line "#tmp private" or "#tmp shared":
 *                      whether the children's TMPDIR could be mounted on /tmp
 *   DNN_FORK_PARALLEL  children at a time (default 2)
 *   DNN_FORK_TIMEOUT   seconds a child may run before it is killed (default 30)
 *   DNN_FORK_FSIZE_MIB the largest file a child may write, RLIMIT_FSIZE
 *                      (default 512): beyond it the child dies of SIGXFSZ
 *   DNN_FORK_AS_MIB    its address space, RLIMIT_AS (default 0: unlimited), a
 *                      safety net for the machine, above the memory bound the
 *                      runner checks with MAXRSS
 *
 * Children run in process groups of their own: a timeout kills what they
 * started (a compiler that a package asks for) too.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
                        void (*)(void), void *);

struct job {
    char *id, *out, *err, *tmp;
    char **argv;
    int argc;
    pid_t pid;
    double start;
    int timed_out;
};

static main_fn ffmpeg_main;

/*
 * ffmpeg's main, then _exit: LibTorch's static destructors (deregistering
 * thousands of operators, about 0.3 s) are the process's, not the model
 * file's; a model's own teardown runs inside main (the filter graph is
 * freed before it returns).
 */
static int child_main(int argc, char **argv, char **envp)
{
    int ret = ffmpeg_main(argc, argv, envp);

    fflush(NULL);
    _exit(ret);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : def;
}

static void die(const char *what)
{
    fprintf(stderr, "fork-server: %s: %s\n", what, strerror(errno));
    _exit(2);
}

/* Split the job file into jobs; argv[0] stays the program's own. */
static struct job *read_jobs(const char *path, char *argv0, int *nb)
{
    FILE *f = fopen(path, "r");
    struct job *jobs = NULL;
    char *line = NULL;
    size_t cap = 0;
    int n = 0;

    if (!f)
        die(path);
    while (getline(&line, &cap, f) > 0) {
        char *save, *field, **fields = NULL;
        int nf = 0;

        line[strcspn(line, "\n")] = 0;
        for (field = strtok_r(line, "\t", &save); field; field = strtok_r(NULL, "\t", &save)) {
            fields = realloc(fields, (nf + 2) * sizeof(*fields));
            if (!fields)
                die("realloc");
            fields[nf++] = strdup(field);
        }
        if (nf < 4)
            continue;
        jobs = realloc(jobs, (n + 1) * sizeof(*jobs));
        if (!jobs)
            die("realloc");
        memset(&jobs[n], 0, sizeof(*jobs));
        jobs[n].id  = fields[0];
        jobs[n].out = fields[1];
        jobs[n].err = fields[2];
        jobs[n].tmp = fields[3];
        /* fields[3] becomes argv[0]: the arguments follow it */
        fields[3] = argv0;
        jobs[n].argv = fields + 3;
        jobs[n].argc = nf - 3;
        jobs[n].argv[jobs[n].argc] = NULL;
        n++;
    }
    free(line);
    fclose(f);
    *nb = n;
    return jobs;
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    int ok;

    if (fd < 0)
        return -1;
    ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    return ok ? 0 : -1;
}

/*
 * Mount dir on /tmp in a mount namespace of the child's own: LibTorch's
 * package loader extracts into /tmp/XXXXXX and leaves the folder behind
 * when loading fails; here what it leaves, and any file written through a
 * name that climbs out of that folder, stay in dir for the runner to see.
 * As root, or in a user namespace where the kernel allows them; 0 or -1.
 */
static int private_tmp(const char *dir)
{
    uid_t uid = getuid();
    gid_t gid = getgid();
    char map[64];

    if (unshare(CLONE_NEWNS) < 0) {
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
            return -1;
        snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
        if (write_file("/proc/self/setgroups", "deny") < 0 ||
            write_file("/proc/self/uid_map", map) < 0)
            return -1;
        snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
        if (write_file("/proc/self/gid_map", map) < 0)
            return -1;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
        mount(dir, "/tmp", NULL, MS_BIND, NULL) < 0)
        return -1;
    return 0;
}

/* Whether a child can have a /tmp of its own (tried in a child of its own). */
static int can_mount_tmp(void)
{
    int status;
    pid_t pid = fork();

    if (pid == 0)
        _exit(private_tmp("/") < 0);
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status);
}

static void start_child(struct job *job, start_fn real_start, main_fn main_, void (*init)(void),
                        void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    pid_t pid = fork();

    if (pid < 0)
        die("fork");
    if (pid == 0) {
        long fsize = env_long("DNN_FORK_FSIZE_MIB", 512), as = env_long("DNN_FORK_AS_MIB", 0);
        struct rlimit rl;
        int fd;

        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if ((fd = open("/dev/null", O_RDONLY)) < 0 || dup2(fd, 0) < 0)
            die("/dev/null");
        if ((fd = open(job->out, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 || dup2(fd, 1) < 0)
            die(job->out);
        if ((fd = open(job->err, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 || dup2(fd, 2) < 0)
            die(job->err);
        if (strcmp(job->tmp, "-"))
            private_tmp(job->tmp);
        rl.rlim_cur = rl.rlim_max = (rlim_t)fsize << 20;
        setrlimit(RLIMIT_FSIZE, &rl);
        if (as > 0) {
            rl.rlim_cur = rl.rlim_max = (rlim_t)as << 20;
            setrlimit(RLIMIT_AS, &rl);
        }
        /* no core files: a crash is an outcome here, not something to keep */
        rl.rlim_cur = rl.rlim_max = 0;
        setrlimit(RLIMIT_CORE, &rl);
        ffmpeg_main = main_;
        _exit(real_start(child_main, job->argc, job->argv, init, fini, rtld_fini, stack_end));
    }
    setpgid(pid, pid);
    job->pid = pid;
    job->start = now();
}

static int serve(start_fn real_start, main_fn main_, char *argv0, void (*init)(void),
                 void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    const char *jobs_path = getenv("DNN_FORK_JOBS"), *results_path = getenv("DNN_FORK_RESULTS");
    long parallel = env_long("DNN_FORK_PARALLEL", 2);
    double timeout = env_long("DNN_FORK_TIMEOUT", 30);
    int nb, next = 0, running = 0;
    struct job *jobs;
    FILE *results;

    if (!results_path || !(results = fopen(results_path, "w")))
        die("DNN_FORK_RESULTS");
    jobs = read_jobs(jobs_path, argv0, &nb);
    fprintf(results, "#tmp %s\n", can_mount_tmp() ? "private" : "shared");
    /* the children must not serve again, nor inherit a line buffer */
    unsetenv("DNN_FORK_JOBS");
    unsetenv("LD_PRELOAD");
    fflush(NULL);
    while (next < nb || running) {
        struct rusage ru;
        int status;
        pid_t pid;

        while (running < parallel && next < nb) {
            start_child(&jobs[next++], real_start, main_, init, fini, rtld_fini, stack_end);
            running++;
        }
        pid = wait4(-1, &status, WNOHANG, &ru);
        if (pid < 0 && errno != EINTR && errno != ECHILD)
            die("wait4");
        if (pid > 0) {
            for (int i = 0; i < next; i++) {
                struct job *j = &jobs[i];
                if (j->pid != pid)
                    continue;
                /* the group: what the child started may still run */
                kill(-pid, SIGKILL);
                fprintf(results, "%s\t%s\t%d\t%ld\t%.0f\n", j->id,
                        j->timed_out ? "timeout" : WIFSIGNALED(status) ? "signal" : "exit",
                        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
                        ru.ru_maxrss, (now() - j->start) * 1000);
                fflush(results);
                j->pid = 0;
                running--;
            }
            continue;
        }
        for (int i = 0; i < next; i++) {
            if (jobs[i].pid > 0 && !jobs[i].timed_out && now() - jobs[i].start > timeout) {
                jobs[i].timed_out = 1;
                kill(-jobs[i].pid, SIGKILL);
            }
        }
        usleep(2000);
    }
    fclose(results);
    return 0;
}

int __libc_start_main(main_fn main_, int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    start_fn real_start = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");

    if (!real_start)
        abort();
    if (!getenv("DNN_FORK_JOBS"))
        return real_start(main_, argc, argv, init, fini, rtld_fini, stack_end);
    (void)argc;
    _exit(serve(real_start, main_, argv[0], init, fini, rtld_fini, stack_end));
}
