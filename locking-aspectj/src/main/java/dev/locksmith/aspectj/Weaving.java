package dev.locksmith.aspectj;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import java.lang.reflect.Method;

/**
 * Tells whether a class's annotated methods were woven: AspectJ moves the body of a method under
 * around advice into a synthetic {@code <name>_aroundBody<N>} method of the same class.
 */
final class Weaving {
  private Weaving() {}

  /**
   * Throws when a {@code @DistributedLock} method declared in the class or a superclass has not
   * been woven.
   */
  static void check(Class<?> type) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      Method[] methods = c.getDeclaredMethods();
      for (Method method : methods) {
        if (!method.isSynthetic()
            && !method.isBridge()
            && Locksmith.isAnnotated(method)
            && !isWoven(method, methods)) {
          throw new LockConfigurationException(
              "@DistributedLock on "
                  + c.getName()
                  + "."
                  + method.getName()
                  + " has no effect: "
                  + c.getName()
                  + " was not woven with "
                  + DistributedLockAspect.class.getName()
                  + ". Add dev.locksmith:locking-aspectj to <aspectLibraries> of the"
                  + " aspectj-maven-plugin (compile-time or binary weaving), or start the JVM with"
                  + " -javaagent:aspectjweaver.jar and locking-aspectj on the class path"
                  + " (load-time weaving)");
        }
      }
    }
  }

  private static boolean isWoven(Method method, Method[] declared) {
    String prefix = method.getName() + "_aroundBody";
    for (Method candidate : declared) {
      if (candidate.getName().startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
