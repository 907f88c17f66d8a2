package dev.locksmith.core.internal;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * The root object of a key expression: {@code #root.method}, {@code #root.args}, {@code
 * #root.targetClass} and {@code #root.methodName}. Public so that a {@link KeyLanguage} (SpEL,
 * compiled or not) can read it; the engine makes one for each evaluation.
 */
public final class KeyRoot {
  private final Method method;
  private final @Nullable Object[] args;
  private final Class<?> targetClass;

  /**
   * The root of one evaluation: the annotated method, the call's arguments and target class.
   *
   * @param method the annotated method
   * @param args the call's arguments
   * @param targetClass the class of the object the method runs on
   */
  public KeyRoot(Method method, @Nullable Object[] args, Class<?> targetClass) {
    this.method = method;
    this.args = args;
    this.targetClass = targetClass;
  }

  /**
   * The annotated method.
   *
   * @return the annotated method
   */
  public Method getMethod() {
    return method;
  }

  /**
   * The method's name.
   *
   * @return the method's name
   */
  public String getMethodName() {
    return method.getName();
  }

  /**
   * The call's arguments.
   *
   * @return the call's arguments
   */
  public @Nullable Object[] getArgs() {
    return args;
  }

  /**
   * The class of the object the method runs on.
   *
   * @return the class of the object the method runs on
   */
  public Class<?> getTargetClass() {
    return targetClass;
  }
}
