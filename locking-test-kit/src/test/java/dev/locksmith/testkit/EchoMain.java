package dev.locksmith.testkit;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A child JVM for {@link ChildJvmTest}: prints its system property {@code echo.name} and arguments,
 * writes one line to standard error, then echoes each input line until {@code exit} or end of
 * input; a shutdown hook says when it runs.
 */
final class EchoMain {
  private EchoMain() {}

  public static void main(String[] args) throws Exception {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("shutdown hook ran")));
    System.out.println("property " + System.getProperty("echo.name"));
    System.out.println("args " + String.join(",", args));
    System.out.flush();
    System.err.println("error output of " + System.getProperty("echo.name"));
    System.err.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.equals("exit")) {
        return;
      }
      System.out.println("echo " + line);
      System.out.flush();
    }
  }
}
