package dev.locksmith.core;

import dev.locksmith.core.internal.KeyLanguage;
import dev.locksmith.core.internal.KeyLanguage.CompiledKey;
import dev.locksmith.core.internal.KeyRoot;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A key attribute, checked once per method: a literal in single quotes ({@code 'nightly'}, no
 * language needed) or an expression compiled by the {@link KeyLanguage}. The engine binds the
 * expression's variables to parameters: {@code #name} (when the class keeps parameter names),
 * {@code #p0} and {@code #a0}.
 */
final class KeyExpression {
  private static final Pattern LITERAL = Pattern.compile("'((?:[^']|'')*)'");

  private final String text;
  private final String where;
  private final @Nullable String literal;
  private final @Nullable CompiledKey compiled;
  private final String[] boundNames;
  private final int[] boundArguments;
  // For the commonest key, one parameter such as "#accountId": its index, read without evaluating.
  private final int directArgument;

  private KeyExpression(
      String text,
      String where,
      @Nullable String literal,
      @Nullable CompiledKey compiled,
      Map<String, Integer> bindings) {
    this.text = text;
    this.where = where;
    this.literal = literal;
    this.compiled = compiled;
    this.boundNames = bindings.keySet().toArray(String[]::new);
    this.boundArguments = bindings.values().stream().mapToInt(Integer::intValue).toArray();
    this.directArgument =
        compiled != null && compiled.isSingleVariable() && boundArguments.length == 1
            ? boundArguments[0]
            : -1;
  }

  /**
   * Parses and checks a key.
   *
   * @param names parameter names from the integration, or {@code null} to read them by reflection
   * @param language the key language, or {@code null} when none is on the class path
   * @throws LockConfigurationException when it does not parse, names an unknown variable, is an
   *     empty literal, or is an expression with no key language
   */
  static KeyExpression parse(
      String text,
      Method method,
      String where,
      String @Nullable [] names,
      @Nullable KeyLanguage language) {
    Matcher literal = LITERAL.matcher(text.strip());
    if (literal.matches()) {
      String value = literal.group(1).replace("''", "'");
      if (value.isEmpty()) {
        throw new LockConfigurationException(
            where
                + ", attribute key: '"
                + text
                + "' is an empty literal; a call without a key does not share one lock with all"
                + " others: leave the key out for one lock per method");
      }
      return new KeyExpression(text, where, value, null, Map.of());
    }
    if (language == null) {
      throw new LockConfigurationException(
          where
              + ", attribute key: '"
              + text
              + "' is an expression, but no key language is on the class path: add the"
              + " dependency dev.locksmith:locksmith-spel (SpEL keys such as #accountId), or write"
              + " a literal key in single quotes");
    }
    CompiledKey compiled;
    try {
      compiled = language.compile(text, method);
    } catch (IllegalArgumentException e) {
      throw new LockConfigurationException(
          where
              + ", attribute key: '"
              + text
              + "' is not a valid "
              + language.name()
              + " expression: "
              + e.getMessage(),
          e);
    }
    @Nullable String[] parameterNames = names != null ? names : reflectedNames(method);
    Map<String, Integer> bindings = bindVariables(text, method, where, compiled, parameterNames);
    Map<String, Type> types = new HashMap<>();
    // Erased: a generic signature naming a class missing from the class path would throw.
    bindings.forEach((name, index) -> types.put(name, method.getParameterTypes()[index]));
    try {
      compiled.checkTypes(types);
    } catch (IllegalArgumentException e) {
      throw new LockConfigurationException(
          where + ", attribute key: '" + text + "' " + e.getMessage(), e);
    }
    return new KeyExpression(text, where, null, compiled, bindings);
  }

  private static @Nullable String[] reflectedNames(Method method) {
    Parameter[] parameters = method.getParameters();
    @Nullable String[] names = new String[parameters.length];
    for (int i = 0; i < parameters.length; i++) {
      names[i] = parameters[i].isNamePresent() ? parameters[i].getName() : null;
    }
    return names;
  }

  /** Maps each variable the expression uses to its argument; fails on an unknown one. */
  private static Map<String, Integer> bindVariables(
      String text,
      Method method,
      String where,
      CompiledKey compiled,
      @Nullable String[] parameterNames) {
    Map<String, Integer> bindings = new LinkedHashMap<>();
    Set<String> known = new LinkedHashSet<>();
    boolean namesMissing = false;
    for (int i = 0; i < parameterNames.length; i++) {
      if (parameterNames[i] == null) {
        namesMissing = true;
      } else {
        known.add(parameterNames[i]);
      }
    }
    for (String name : compiled.variables()) {
      // A parameter's own name first: one named p0 is #p0, as in Spring's evaluation context.
      if (known.contains(name)) {
        bindings.put(name, Arrays.asList(parameterNames).indexOf(name));
        continue;
      }
      if (isIndexed(name, parameterNames.length)) {
        bindings.put(name, Integer.parseInt(name.substring(1)));
        continue;
      }
      String indexed =
          parameterNames.length == 0
              ? "the method has no parameters"
              : "or #p0..#p"
                  + (parameterNames.length - 1)
                  + " / #a0..#a"
                  + (parameterNames.length - 1);
      String hint =
          namesMissing
              ? "; parameter names are not available because "
                  + method.getDeclaringClass().getName()
                  + " was compiled without -parameters: compile with -parameters"
                  + " (maven-compiler-plugin <parameters>true</parameters>) or use #p0/#a0"
              : "; parameters are " + known + " (" + indexed + ")";
      throw new LockConfigurationException(
          where
              + ", attribute key: '"
              + text
              + "' refers to #"
              + name
              + ", which is not a parameter"
              + hint);
    }
    return bindings;
  }

  private static boolean isIndexed(String name, int count) {
    if (name.length() < 2 || (name.charAt(0) != 'p' && name.charAt(0) != 'a')) {
      return false;
    }
    String digits = name.substring(1);
    if (!digits.chars().allMatch(Character::isDigit) || digits.length() > 4) {
      return false;
    }
    return Integer.parseInt(digits) < count;
  }

  /**
   * Evaluates the key for one call: one key, or several when the value is a collection or array
   * ({@link KeyText#keys}).
   *
   * @throws LockKeyException when evaluation fails or gives null or an empty string, or more than
   *     {@link dev.locksmith.core.spi.LockProvider#MAX_KEYS_PER_CALL} distinct keys
   */
  List<String> evaluate(Method method, @Nullable Object[] args, Class<?> targetClass) {
    if (literal != null) {
      return List.of(literal);
    }
    if (directArgument >= 0) {
      return KeyText.keys(args[directArgument], text, where);
    }
    Map<String, @Nullable Object> variables = new HashMap<>();
    for (int i = 0; i < boundNames.length; i++) {
      variables.put(boundNames[i], args[boundArguments[i]]);
    }
    Object value;
    try {
      value = compiled().evaluate(new KeyRoot(method, args, targetClass), variables);
    } catch (RuntimeException e) {
      throw new LockKeyException(
          where + ": key expression '" + text + "' failed: " + e.getMessage(), e);
    }
    return KeyText.keys(value, text, where);
  }

  private CompiledKey compiled() {
    if (compiled == null) {
      throw new IllegalStateException("a literal key has no expression");
    }
    return compiled;
  }

  String text() {
    return text;
  }
}
