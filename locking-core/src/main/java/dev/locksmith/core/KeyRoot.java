package dev.locksmith.core;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * The root object of a key expression: {@code #root.method}, {@code #root.args}, {@code
 * #root.targetClass} and {@code #root.methodName}. Public only so that SpEL can read it.
 */
public final class KeyRoot {
  private final Method method;
  private final @Nullable Object[] args;
  private final Class<?> targetClass;

  KeyRoot(Method method, @Nullable Object[] args, Class<?> targetClass) {
    this.method = method;
    this.args = args;
    this.targetClass = targetClass;
  }

  /** The annotated method. */
  public Method getMethod() {
    return method;
  }

  /** The method's name. */
  public String getMethodName() {
    return method.getName();
  }

  /** The call's arguments. */
  public @Nullable Object[] getArgs() {
    return args;
  }

  /** The class of the object the method runs on. */
  public Class<?> getTargetClass() {
    return targetClass;
  }
}
