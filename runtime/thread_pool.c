/* A fixed pool of worker threads for tirc_parallel_for. The pool is a process-
   wide resource (like an OpenMP runtime): created on first use, resized when the
   requested thread count changes, joined at exit. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "tirc_runtime.h"

enum { kMaxThreads = 256 };

struct Job {
  tirc_parallel_body body;
  void* closure;
  int64_t n;
  int chunks;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;   /* guards the pool */
static pthread_mutex_t g_call = PTHREAD_MUTEX_INITIALIZER;   /* one parallel_for at a time */
static pthread_cond_t g_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_done = PTHREAD_COND_INITIALIZER;
static pthread_t g_threads[kMaxThreads];
static int g_num_workers = 0;      /* started worker threads */
static int g_requested = 0;        /* 0: default */
static int g_default = 0;          /* 0: not yet computed */
static unsigned long g_generation = 0;
static struct Job g_job;
static int g_next_chunk = 0;
static unsigned long g_pending = 0;
static int g_stop = 0;
static __thread int t_inside = 0;

/* Waiting first spins for a while (about 50-100 us) before sleeping on a
   condition variable: the kernels of a model run their parallel loops one
   right after another, and waking a sleeping thread costs tens of
   microseconds, as much as a small loop itself (OpenMP runtimes spin too).
   The spinning reads below are atomic; every write of these words happens
   under g_lock and is atomic as well. */
enum { kSpins = 20000 };

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Spins until *word differs from `value` or g_stop is set, or the spin
   budget is spent; called and returns with g_lock held. */
static void spin_while_equal(const unsigned long* word, unsigned long value) {
  pthread_mutex_unlock(&g_lock);
  for (int i = 0; i < kSpins; ++i) {
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != value ||
        __atomic_load_n(&g_stop, __ATOMIC_ACQUIRE))
      break;
    cpu_relax();
  }
  pthread_mutex_lock(&g_lock);
}

static void run_chunk(const struct Job* job, int c) {
  int64_t begin = job->n * c / job->chunks;
  int64_t end = job->n * (c + 1) / job->chunks;
  if (begin < end) job->body(begin, end, job->closure);
}

/* Claims and runs chunks until none is left; called with g_lock held. */
static void drain(void) {
  while (g_next_chunk < g_job.chunks) {
    int c = g_next_chunk++;
    struct Job job = g_job;
    pthread_mutex_unlock(&g_lock);
    run_chunk(&job, c);
    pthread_mutex_lock(&g_lock);
    __atomic_store_n(&g_pending, g_pending - 1, __ATOMIC_RELEASE);
    if (g_pending == 0) pthread_cond_broadcast(&g_done);
  }
}

static void* worker(void* arg) {
  (void)arg;
  t_inside = 1;
  pthread_mutex_lock(&g_lock);
  unsigned long seen = g_generation;
  for (;;) {
    if (!g_stop && seen == g_generation) spin_while_equal(&g_generation, seen);
    while (!g_stop && seen == g_generation) pthread_cond_wait(&g_work, &g_lock);
    if (g_stop) break;
    seen = g_generation;
    drain();
  }
  pthread_mutex_unlock(&g_lock);
  return NULL;
}

static int default_threads(void) {
  const char* env = getenv("TIRC_NUM_THREADS");
  if (env) {
    int n = atoi(env);
    if (n >= 1) return n > kMaxThreads ? kMaxThreads : n;
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 1) cpus = 1;
  return cpus > kMaxThreads ? kMaxThreads : (int)cpus;
}

static void stop_workers(void) {
  pthread_mutex_lock(&g_lock);
  __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&g_work);
  int n = g_num_workers;
  pthread_mutex_unlock(&g_lock);
  for (int i = 0; i < n; ++i) pthread_join(g_threads[i], NULL);
  pthread_mutex_lock(&g_lock);
  g_num_workers = 0;
  __atomic_store_n(&g_stop, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&g_lock);
}

static void at_exit_stop(void) { stop_workers(); }

/* fork() copies only the calling thread: a child (the tuner measures each
   candidate in one) must not believe the parent's workers exist, or its first
   parallel loop waits for them forever. The locks are held across the fork so
   the child never inherits them mid-update, then the child starts with no
   workers and makes its own on first use. */
static void before_fork(void) {
  pthread_mutex_lock(&g_call);
  pthread_mutex_lock(&g_lock);
}
static void after_fork_parent(void) {
  pthread_mutex_unlock(&g_lock);
  pthread_mutex_unlock(&g_call);
}
static void after_fork_child(void) {
  g_num_workers = 0;
  g_pending = 0;
  g_stop = 0;
  pthread_cond_init(&g_work, NULL);
  pthread_cond_init(&g_done, NULL);
  pthread_mutex_unlock(&g_lock);
  pthread_mutex_unlock(&g_call);
}

/* Makes sure `want` - 1 workers run; returns how many do. */
static int ensure_workers(int want) {
  static int registered = 0;
  if (g_num_workers == want - 1) return g_num_workers;
  stop_workers();
  if (!registered) {
    atexit(at_exit_stop);
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    registered = 1;
  }
  pthread_mutex_lock(&g_lock);
  for (int i = 0; i < want - 1; ++i) {
    if (pthread_create(&g_threads[i], NULL, worker, NULL) != 0) break;
    ++g_num_workers;
  }
  int started = g_num_workers;
  pthread_mutex_unlock(&g_lock);
  return started;
}

int tirc_get_num_threads(void) {
  pthread_mutex_lock(&g_lock);
  /* Cached: sysconf reads /sys on every call (about 10 us), which would
     dominate small parallel loops. */
  if (g_default == 0) g_default = default_threads();
  int n = g_requested >= 1 ? g_requested : g_default;
  pthread_mutex_unlock(&g_lock);
  return n;
}

void tirc_set_num_threads(int n) {
  pthread_mutex_lock(&g_lock);
  g_requested = n >= 1 ? (n > kMaxThreads ? kMaxThreads : n) : 0;
  g_default = 0; /* read TIRC_NUM_THREADS and the CPU count again */
  pthread_mutex_unlock(&g_lock);
}

int tirc_parallel_for(int64_t n, tirc_parallel_body body, void* closure) {
  if (n <= 0) return 0;
  int threads = tirc_get_num_threads();
  if (t_inside || threads <= 1 || n == 1) {
    body(0, n, closure);
    return 0;
  }
  pthread_mutex_lock(&g_call);
  int workers = ensure_workers(threads);
  pthread_mutex_lock(&g_lock);
  g_job.body = body;
  g_job.closure = closure;
  g_job.n = n;
  g_job.chunks = (int)(n < workers + 1 ? n : workers + 1);
  g_next_chunk = 0;
  __atomic_store_n(&g_pending, (unsigned long)g_job.chunks, __ATOMIC_RELEASE);
  __atomic_store_n(&g_generation, g_generation + 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&g_work);
  t_inside = 1;
  drain();
  t_inside = 0;
  while (g_pending > 0) {
    const unsigned long before = g_pending;
    spin_while_equal(&g_pending, before);
    if (g_pending == before) pthread_cond_wait(&g_done, &g_lock); /* the spin ran out */
  }
  pthread_mutex_unlock(&g_lock);
  pthread_mutex_unlock(&g_call);
  return 0;
}
