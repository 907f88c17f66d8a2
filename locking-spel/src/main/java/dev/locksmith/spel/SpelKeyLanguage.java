package dev.locksmith.spel;

import dev.locksmith.core.internal.KeyLanguage;
import dev.locksmith.core.internal.KeyRoot;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.MethodResolver;
import org.springframework.expression.ParseException;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.Elvis;
import org.springframework.expression.spel.ast.OpAnd;
import org.springframework.expression.spel.ast.OpOr;
import org.springframework.expression.spel.ast.Ternary;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Lock keys in the Spring Expression Language: {@code #accountId}, {@code #p0 + '/' + #a1}, {@code
 * #order.customer().toUpperCase()}, {@code #root.methodName}. Registered under {@code
 * META-INF/services}, so an engine built with this module on the class path uses it with no wiring;
 * give one made by {@link #withContext} to {@link dev.locksmith.core.LocksmithBuilder#keyLanguage}
 * to adjust the evaluation context, say with a bean resolver for {@code @bean.method()}.
 *
 * <p>Expressions are compiled in SpEL's mixed mode with the annotated class's class loader. One
 * that refers to a bean ({@code @tenants}) is refused when compiled (at validation) unless the
 * context has a bean resolver: without one every call would fail. So is one that reads a property
 * or method that a parameter's final declared type (a record, say) lacks, when the context reads
 * properties only by reflection.
 */
public final class SpelKeyLanguage implements KeyLanguage {
  private final Consumer<StandardEvaluationContext> contextCustomizer;

  /** SpEL with a plain evaluation context; the one {@code ServiceLoader} finds. */
  public SpelKeyLanguage() {
    this(context -> {});
  }

  private SpelKeyLanguage(Consumer<StandardEvaluationContext> contextCustomizer) {
    this.contextCustomizer = contextCustomizer;
  }

  /**
   * SpEL whose evaluation context is adjusted before each evaluation, for example {@code context ->
   * context.setBeanResolver(new BeanFactoryResolver(beanFactory))}. The context's root object is
   * the call's {@link KeyRoot} and the parameters are set as variables.
   *
   * @param customizer adjusts each evaluation's context
   * @return the key language
   */
  public static SpelKeyLanguage withContext(Consumer<StandardEvaluationContext> customizer) {
    return new SpelKeyLanguage(Objects.requireNonNull(customizer));
  }

  /** {@code SpEL}. */
  @Override
  public String name() {
    return "SpEL";
  }

  /**
   * Parses an expression in mixed compiler mode.
   *
   * @throws IllegalArgumentException with SpEL's parse error when it does not parse
   */
  @Override
  public CompiledKey compile(String expression, Method method) {
    SpelExpressionParser parser =
        new SpelExpressionParser(
            new SpelParserConfiguration(
                SpelCompilerMode.MIXED, method.getDeclaringClass().getClassLoader()));
    SpelExpression parsed;
    try {
      parsed = (SpelExpression) parser.parseExpression(expression);
    } catch (ParseException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    String bean = firstBeanReference(parsed.getAST());
    if (bean != null && !resolvesBeans()) {
      throw new IllegalArgumentException(
          "it refers to bean "
              + bean
              + ", and this engine's key language has no bean resolver, so every call would fail;"
              + " pass the bean's value as a parameter, or give the engine"
              + " SpelKeyLanguage.withContext(context -> context.setBeanResolver(...)) (Spring's"
              + " integration does)");
    }
    return new SpelKey(
        parsed, contextCustomizer, ConcatenatedOperands.of(parsed, parser), readsByReflection());
  }

  /**
   * Whether the customised evaluation context resolves {@code @bean} references; a customiser that
   * fails on a context of its own, or decides per call, is given the benefit of the doubt.
   */
  private boolean resolvesBeans() {
    StandardEvaluationContext context = new StandardEvaluationContext();
    try {
      contextCustomizer.accept(context);
    } catch (RuntimeException e) {
      return true;
    }
    return context.getBeanResolver() != null;
  }

  /**
   * Whether the customised evaluation context reads properties and calls methods only as SpEL's
   * reflection does, so that the declared types of the parameters tell what a key can read.
   */
  private boolean readsByReflection() {
    StandardEvaluationContext context = new StandardEvaluationContext();
    List<PropertyAccessor> accessors = List.copyOf(context.getPropertyAccessors());
    List<MethodResolver> resolvers = List.copyOf(context.getMethodResolvers());
    try {
      contextCustomizer.accept(context);
    } catch (RuntimeException e) {
      return false;
    }
    return context.getPropertyAccessors().equals(accessors)
        && context.getMethodResolvers().equals(resolvers);
  }

  /**
   * The first bean reference that every evaluation reaches: one in a branch that may not run (the
   * right of {@code ?:}, {@code and} or {@code or}, a branch of {@code ? :}) is left out, since
   * such a key works for every call that does not take it.
   */
  private static @Nullable String firstBeanReference(SpelNode node) {
    if (node instanceof BeanReference) {
      return node.toStringAST();
    }
    for (int i = 0; i < childrenAlwaysEvaluated(node); i++) {
      String found = firstBeanReference(node.getChild(i));
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /**
   * How many of a node's children, from the first, every evaluation of the node reaches: the first
   * of {@code ?:}, {@code and}, {@code or} and {@code ? :} (their other branches may not run), else
   * all.
   */
  static int childrenAlwaysEvaluated(SpelNode node) {
    return node instanceof Elvis
            || node instanceof Ternary
            || node instanceof OpAnd
            || node instanceof OpOr
        ? Math.min(1, node.getChildCount())
        : node.getChildCount();
  }

  /** One parsed expression and the variables it reads. */
  private static final class SpelKey implements CompiledKey {
    private final SpelExpression expression;
    private final Consumer<StandardEvaluationContext> contextCustomizer;
    private final List<String> variables;
    private final ConcatenatedOperands concatenated;
    private final boolean readsByReflection;

    SpelKey(
        SpelExpression expression,
        Consumer<StandardEvaluationContext> contextCustomizer,
        ConcatenatedOperands concatenated,
        boolean readsByReflection) {
      this.expression = expression;
      this.contextCustomizer = contextCustomizer;
      this.concatenated = concatenated;
      this.readsByReflection = readsByReflection;
      List<String> found = new ArrayList<>();
      collectVariables(expression.getAST(), found);
      this.variables = List.copyOf(found);
    }

    private static void collectVariables(SpelNode node, List<String> into) {
      if (node instanceof VariableReference) {
        String name = node.toStringAST().substring(1);
        if (!name.equals("root") && !name.equals("this") && !into.contains(name)) {
          into.add(name);
        }
      }
      for (int i = 0; i < node.getChildCount(); i++) {
        collectVariables(node.getChild(i), into);
      }
    }

    @Override
    public List<String> variables() {
      return variables;
    }

    @Override
    public boolean isSingleVariable() {
      return expression.getAST() instanceof VariableReference && variables.size() == 1;
    }

    /**
     * Checks each property and method read from a parameter whose declared type is final, unless
     * the context reads properties in ways of its own.
     */
    @Override
    public void checkTypes(Map<String, Type> variableTypes) {
      if (readsByReflection) {
        DeclaredTypes.check(expression.getAST(), variableTypes);
      }
    }

    @Override
    public @Nullable Object evaluate(KeyRoot root, Map<String, @Nullable Object> values) {
      StandardEvaluationContext context = new StandardEvaluationContext(root);
      values.forEach(context::setVariable);
      contextCustomizer.accept(context);
      Object value = expression.getValue(context);
      concatenated.checkNotNull(context, value);
      return value;
    }
  }
}
