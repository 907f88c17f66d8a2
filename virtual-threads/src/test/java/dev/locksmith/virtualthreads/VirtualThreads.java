package dev.locksmith.virtualthreads;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Virtual threads for tests compiled for Java 17 (as the whole build is) and run in a JDK 25: the
 * executor is looked up at run time, and a JVM without virtual threads fails the test.
 */
final class VirtualThreads {
  private VirtualThreads() {}

  /** {@code Executors.newVirtualThreadPerTaskExecutor()}. */
  static ExecutorService perTaskExecutor() {
    if (Runtime.version().feature() < 21) {
      throw new IllegalStateException(
          "virtual-thread tests need Java 21 or newer, this JVM is "
              + Runtime.version()
              + "; run them with -Pvirtual-threads -Djava25.home=/path/to/jdk-25");
    }
    try {
      return (ExecutorService)
          MethodHandles.publicLookup()
              .findStatic(
                  Executors.class,
                  "newVirtualThreadPerTaskExecutor",
                  MethodType.methodType(ExecutorService.class))
              .invoke();
    } catch (Throwable e) {
      throw new IllegalStateException("no virtual-thread executor in " + Runtime.version(), e);
    }
  }
}
