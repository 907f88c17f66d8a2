package dev.locksmith.testkit;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Two threads making the same number of calls each, every pair of calls started together. */
final class TwoThreadRace {
  private TwoThreadRace() {}

  /**
   * Runs {@code one} and {@code other} {@code rounds} times each on two threads, starting each
   * round together; a thread that fails, or takes over two minutes (a deadlock), fails the race.
   */
  static void run(int rounds, Runnable one, Runnable other) throws Exception {
    CyclicBarrier barrier = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> forth = pool.submit(() -> race(barrier, rounds, one));
      Future<?> back = pool.submit(() -> race(barrier, rounds, other));
      forth.get(120, TimeUnit.SECONDS); // a deadlock would time out here
      back.get(120, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Makes both threads start each call together, {@code rounds} times. */
  private static Void race(CyclicBarrier barrier, int rounds, Runnable call) throws Exception {
    for (int round = 0; round < rounds; round++) {
      barrier.await(30, TimeUnit.SECONDS);
      call.run();
    }
    return null;
  }
}
