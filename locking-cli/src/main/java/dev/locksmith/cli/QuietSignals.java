package dev.locksmith.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Makes SIGUSR1 and SIGALRM end the JVM as SIGTERM does: through its shutdown hooks, with 128 + the
 * signal's number. By default either ends the JVM at once without them, which left {@code run}'s
 * COMMAND group to the signaller's SIGKILL, without its grace, and the lock held until its ttl ran
 * out, and stopped {@code server} without its graceful shutdown. SIGUSR2 is the JVM's own, and
 * SIGQUIT prints its thread dump. {@code sun.misc.Signal} (module {@code jdk.unsupported}) is
 * reached reflectively: named in the source it is a compiler warning that no annotation silences.
 */
final class QuietSignals {
  private static final String[] NAMES = {"USR1", "ALRM"};

  private QuietSignals() {}

  /**
   * Installs the handlers; a signal this platform or JVM does not let us handle keeps its default.
   */
  static void exitThroughHooks() {
    Class<?> signalClass;
    Class<?> handlerClass;
    Method handle;
    Method number;
    try {
      signalClass = Class.forName("sun.misc.Signal");
      handlerClass = Class.forName("sun.misc.SignalHandler");
      handle = signalClass.getMethod("handle", signalClass, handlerClass);
      number = signalClass.getMethod("getNumber");
    } catch (ReflectiveOperationException e) {
      return; // a JVM without jdk.unsupported: the defaults stay
    }
    Object handler =
        Proxy.newProxyInstance(
            handlerClass.getClassLoader(),
            new Class<?>[] {handlerClass},
            (proxy, method, args) -> {
              if (method.getName().equals("handle")) {
                System.exit(128 + (int) number.invoke(args[0]));
                return null;
              }
              return switch (method.getName()) {
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> "exit-through-hooks";
              };
            });
    for (String name : NAMES) {
      try {
        handle.invoke(null, signalClass.getConstructor(String.class).newInstance(name), handler);
      } catch (ReflectiveOperationException e) {
        // Not a signal here, or one the JVM uses (IllegalArgumentException): its default stays.
      }
    }
  }
}
