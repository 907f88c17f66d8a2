package dev.locksmith.micronaut;

import dev.locksmith.core.LockConfigurationException;
import io.micronaut.core.type.Argument;
import io.micronaut.inject.ExecutableMethod;
import jakarta.inject.Singleton;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What the Micronaut side knows of each annotated method before the engine sees it: the parameter
 * names from compile-time metadata (so that keys may say {@code #paramName} without {@code
 * -parameters}) and whether its return type can be held under a lock.
 */
@Singleton
final class LockedMethods {
  private final ConcurrentHashMap<Method, String[]> names = new ConcurrentHashMap<>();

  /**
   * Records an executable method's parameter names and checks its return type.
   *
   * @return the reflective method the engine keys its configuration on
   * @throws LockConfigurationException for a {@code Future} that is not a {@code CompletionStage}
   */
  Method register(ExecutableMethod<?, ?> executable) {
    Method method = executable.getTargetMethod();
    Class<?> returnType = method.getReturnType();
    if (Future.class.isAssignableFrom(returnType)
        && !CompletionStage.class.isAssignableFrom(returnType)) {
      throw new LockConfigurationException(
          "@DistributedLock on "
              + method.getDeclaringClass().getName()
              + "."
              + method.getName()
              + Arrays.stream(method.getParameterTypes())
                  .map(Class::getSimpleName)
                  .collect(Collectors.joining(", ", "(", ")"))
              + ": return type "
              + returnType.getName()
              + " cannot tell when the work ends, so the lock could not be held until then;"
              + " return CompletableFuture or CompletionStage");
    }
    names.computeIfAbsent(
        method,
        m ->
            Arrays.stream(executable.getArguments()).map(Argument::getName).toArray(String[]::new));
    return method;
  }

  /** The recorded names, or {@code null} to let the engine fall back to reflection. */
  String @Nullable [] parameterNames(Method method) {
    String[] recorded = names.get(method);
    return recorded == null ? null : recorded.clone();
  }
}
