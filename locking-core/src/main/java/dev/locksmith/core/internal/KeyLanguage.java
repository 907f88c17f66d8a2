package dev.locksmith.core.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The language in which the {@code key} of {@code @DistributedLock} is written, such as SpEL
 * ({@code #accountId}). The engine finds one through {@link java.util.ServiceLoader} ({@code
 * META-INF/services/dev.locksmith.core.internal.KeyLanguage}), or is given one by {@link
 * dev.locksmith.core.LocksmithBuilder#keyLanguage}.
 *
 * <p>The language only parses and evaluates. The engine keeps the rules around it: a blank key
 * means no key, a key in single quotes ({@code 'nightly'}) is a literal that needs no language,
 * every variable an expression uses must name a parameter ({@code #name}, {@code #p0}, {@code
 * #a0}), and a value that is {@code null}, empty or has no {@code toString()} of its own is an
 * error; the engine also writes every message, naming the method and attribute.
 */
public interface KeyLanguage {

  /**
   * The language's name in messages, such as {@code SpEL}.
   *
   * @return the language's name in messages, such as {@code SpEL}
   */
  String name();

  /**
   * Parses an expression once, when the method's annotation is validated.
   *
   * @param expression the key attribute's text, placeholders already resolved
   * @param method the annotated method, whose class loader the expression may need
   * @return the compiled expression, evaluated for each call
   * @throws IllegalArgumentException when the text does not parse, with the reason as its message
   */
  CompiledKey compile(String expression, Method method);

  /** A key expression parsed by a {@link KeyLanguage}; thread-safe. */
  interface CompiledKey {

    /**
     * The variables the expression reads ({@code accountId} for {@code #accountId}), without the
     * language's own (such as SpEL's {@code #root} and {@code #this}), in order of appearance. The
     * engine binds each to a parameter of the method, or reports it at validation.
     *
     * @return the variables the expression reads ({@code accountId} for {@code #accountId}),
     *     without the language's own (such as SpEL's {@code #root} and {@code #this}), in order of
     *     appearance
     */
    List<String> variables();

    /**
     * Whether the expression is nothing but one variable, such as {@code #accountId}; the engine
     * then reads that argument itself, without evaluating.
     *
     * @return whether the expression is nothing but one variable, such as {@code #accountId}; the
     *     engine then reads that argument itself, without evaluating
     */
    boolean isSingleVariable();

    /**
     * Checks, once at validation, what the declared types of the parameters already tell: say that
     * a property the expression reads from a parameter exists. The default checks nothing.
     *
     * @param variableTypes the declared class of the parameter each of {@link #variables()} is
     *     bound to
     * @throws IllegalArgumentException when the expression cannot work for any call, with the
     *     reason as its message
     */
    default void checkTypes(Map<String, Type> variableTypes) {}

    /**
     * Evaluates the expression for one call.
     *
     * @param root the call: {@code #root.method}, {@code #root.args}, {@code #root.targetClass}
     * @param variables the value of each of {@link #variables()} in this call
     * @return the value, turned into the key's text by the engine
     * @throws RuntimeException when evaluation fails; the engine reports it as a key error
     */
    @Nullable Object evaluate(KeyRoot root, Map<String, @Nullable Object> variables);
  }
}
