package dev.locksmith.micronaut.app;

import io.micronaut.context.ApplicationContext;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A small Micronaut application for tests that need a JVM of its own. Arguments: the environments
 * (comma-separated), then {@code key=value} properties. It closes its context on SIGTERM through a
 * shutdown hook, as an application without an HTTP server must (Micronaut registers one only for an
 * embedded server); with {@code child.exit-after-start=true} it closes at once and exits.
 */
public final class ChildApp {
  private ChildApp() {}

  /** Starts the application; see the class comment for the arguments. */
  public static void main(String[] args) throws InterruptedException {
    Map<String, Object> properties = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      properties.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    ApplicationContext context =
        ApplicationContext.builder()
            .environments(args[0].split(","))
            .properties(properties)
            .start();
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  context.close();
                  System.out.println("context closed");
                  closed.countDown();
                },
                "child-app-shutdown"));
    System.out.println("context started");
    if ("true".equals(properties.get("child.exit-after-start"))) {
      System.exit(0);
    }
    if (!closed.await(5, TimeUnit.MINUTES)) {
      System.out.println("no SIGTERM within 5 minutes; exiting");
      System.exit(2);
    }
  }
}
