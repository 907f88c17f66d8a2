package dev.locksmith.core.internal;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

/** How every Locksmith message names a method, so that one method reads the same everywhere. */
public final class Signatures {
  private Signatures() {}

  /**
   * {@code com.acme.Report.run(String, int)}: the declaring class's binary name, the method's name
   * and its parameter types' simple names.
   *
   * @param method the method
   * @return its signature
   */
  public static String of(Method method) {
    return method.getDeclaringClass().getName()
        + "."
        + method.getName()
        + Arrays.stream(method.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(", ", "(", ")"));
  }
}
