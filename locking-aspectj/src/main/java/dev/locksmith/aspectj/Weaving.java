package dev.locksmith.aspectj;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.internal.Signatures;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Tells whether the aspect intercepts each method that the engine treats as locked ({@link
 * AnnotatedMethods#isAnnotated}): the method must carry the annotation itself, at most two levels
 * of meta-annotation away (what {@link DistributedLockAspect}'s pointcut matches), and its class
 * must have been woven. AspectJ moves the body of a method under around advice into a synthetic
 * {@code <name>_aroundBody<N>} method of the same class, taking the target (for an instance
 * method), the method's parameters and the join point.
 */
final class Weaving {
  /** The deepest annotation chain the pointcut matches: the method's own, and two meta levels. */
  static final int POINTCUT_DEPTH = 3;

  /** What to do about a class that was not woven. */
  static final String HOW_TO_WEAVE =
      "To weave a class, add dev.locksmith:locksmith-aspectj to <aspectLibraries> of the"
          + " aspectj-maven-plugin and let ajc compile or weave the class (compile-time or binary"
          + " weaving), or start the JVM with -javaagent:aspectjweaver.jar and locking-aspectj on"
          + " the class path, with the class inside an <include within=...> of your"
          + " META-INF/aop.xml (load-time weaving)";

  private Weaving() {}

  /** One method that the engine treats as locked but that the aspect does not intercept. */
  record Problem(Method method, String message, boolean notWoven) {}

  /**
   * Throws when a {@code @DistributedLock} method declared in the class or a superclass is not
   * intercepted by the aspect.
   */
  static void check(Class<?> type) {
    List<Problem> problems = new ArrayList<>(problems(type));
    if (!problems.isEmpty()) {
      throw new LockConfigurationException(describe(problems));
    }
  }

  /**
   * The methods declared in the class or its superclasses that the engine treats as locked and the
   * aspect does not intercept.
   *
   * @throws LockConfigurationException when the class's methods cannot be read (see {@link
   *     #unreadable})
   */
  static Set<Problem> problems(Class<?> type) {
    try {
      return problemsOf(type);
    } catch (NoClassDefFoundError e) {
      throw unreadable(type, e);
    }
  }

  /**
   * The error for a class that loads but whose methods cannot be read: a type in one of their
   * signatures is missing (an optional dependency left out). Its locked calls would fail too, as
   * the aspect reads the method to lock it.
   */
  static LockConfigurationException unreadable(Class<?> type, NoClassDefFoundError e) {
    return new LockConfigurationException(
        "The methods of "
            + type.getName()
            + " cannot be read here ("
            + e
            + "): a type they name is missing from the class path, so its @DistributedLock"
            + " methods cannot be checked and every locked call to them would fail; add the"
            + " missing dependency",
        e);
  }

  private static Set<Problem> problemsOf(Class<?> type) {
    Set<Problem> problems = new LinkedHashSet<>();
    Map<Class<?>, Boolean> withThisAspect = new HashMap<>();
    for (Method method : AnnotatedMethods.of(type)) {
      Problem problem =
          problem(
              method,
              method.getDeclaringClass().getDeclaredMethods(),
              withThisAspect.computeIfAbsent(
                  method.getDeclaringClass(), WovenClassFile::mayBeWovenWithTheLockAspect));
      if (problem != null) {
        problems.add(problem);
      }
    }
    AnnotatedMethods.inheritedBodies(type)
        .forEach((body, locked) -> problems.add(implementedByInheritedMethod(type, body, locked)));
    return problems;
  }

  /**
   * A locked interface method of {@code type} whose body is a method {@code type} inherits from a
   * class that does not implement the interface: no method of {@code type}'s own carries or
   * inherits the annotation, and the aspect never sees it.
   */
  private static Problem implementedByInheritedMethod(Class<?> type, Method body, Method locked) {
    return new Problem(
        body,
        "@DistributedLock on interface method "
            + name(locked)
            + " does not reach "
            + name(body)
            + ", which implements it for "
            + type.getName()
            + ": AspectJ matches only annotations on the method that has the body, so it runs"
            + " unlocked. Put @DistributedLock on "
            + name(body)
            + " itself, or override it in "
            + type.getName()
            + " with the annotation",
        false);
  }

  /** One message for all problems, with how to weave when a class was not woven. */
  static String describe(List<Problem> problems) {
    boolean notWoven = problems.stream().anyMatch(Problem::notWoven);
    if (problems.size() == 1) {
      return problems.get(0).message() + (notWoven ? ". " + HOW_TO_WEAVE : "");
    }
    return problems.size()
        + " @DistributedLock methods would run unlocked:\n"
        + problems.stream().map(Problem::message).collect(Collectors.joining("\n  - ", "  - ", ""))
        + (notWoven ? "\n" + HOW_TO_WEAVE : "");
  }

  private static @Nullable Problem problem(
      Method method, Method[] declared, boolean mayBeWovenWithTheLockAspect) {
    if (method.isSynthetic()
        || method.isBridge()
        || Modifier.isAbstract(method.getModifiers())
        || Modifier.isNative(method.getModifiers())
        || !AnnotatedMethods.isAnnotated(method)) {
      return null;
    }
    int depth = annotationDepth(method);
    if (depth == 0) {
      return inherited(method);
    }
    if (depth > POINTCUT_DEPTH) {
      return new Problem(
          method,
          "@DistributedLock reaches "
              + name(method)
              + " through "
              + (depth - 1)
              + " levels of meta-annotation, but "
              + DistributedLockAspect.class.getName()
              + " matches at most two (an annotation annotated with @DistributedLock, or with such"
              + " an annotation), so the method runs unlocked. Annotate it with @DistributedLock,"
              + " or with an annotation at most two levels away from it",
          false);
    }
    if (isWoven(method, declared) && mayBeWovenWithTheLockAspect) {
      return null;
    }
    return new Problem(
        method,
        "@DistributedLock on "
            + name(method)
            + " has no effect: "
            + method.getDeclaringClass().getName()
            + " was not woven with "
            + DistributedLockAspect.class.getName(),
        true);
  }

  /** The method inherits the annotation from the method it overrides or implements. */
  private static Problem inherited(Method method) {
    Method from = AnnotatedMethods.sourceOf(method).filter(m -> !m.equals(method)).orElse(null);
    String where;
    String unlocked;
    if (from == null) {
      where = "an overridden method";
      unlocked = "";
    } else if (from.getDeclaringClass().isInterface()) {
      where = "interface method " + name(from);
      unlocked = "";
    } else {
      where = "the overridden method " + name(from);
      unlocked = " (" + name(from) + " itself is locked only when called through super)";
    }
    return new Problem(
        method,
        "@DistributedLock on "
            + where
            + " does not reach "
            + name(method)
            + ": AspectJ matches only annotations on the method that has the body (an execution"
            + " join point does not inherit method annotations), so "
            + name(method)
            + " runs unlocked whether or not its class is woven"
            + unlocked
            + ". Put @DistributedLock on "
            + name(method)
            + " itself"
            + (from == null ? "" : sameLock(method, from))
            + "; the annotation on "
            + (from == null ? "the overridden method" : name(from))
            + " may stay for Spring or Micronaut proxies",
        false);
  }

  /**
   * How to copy the annotation so that it takes the same lock: a bare one would default its name to
   * the overriding class's, another lock, and a call through {@code super} would take both.
   */
  private static String sameLock(Method method, Method from) {
    DistributedLock annotation = AnnotatedMethods.find(from);
    String name =
        annotation == null || annotation.name().isEmpty()
            ? from.getDeclaringClass().getSimpleName() + "." + from.getName()
            : annotation.name();
    return ", with the attributes of the one on "
        + name(from)
        + " and its name spelt out (name = \""
        + name
        + "\"): a bare annotation names the lock "
        + method.getDeclaringClass().getSimpleName()
        + "."
        + method.getName()
        + ", another lock, and a call through super would then take both";
  }

  /**
   * How far {@code @DistributedLock} is from the method's own annotations: 1 on the method, 2 on
   * the type of one of its annotations, and so on; 0 when the method does not carry it itself.
   */
  static int annotationDepth(Method method) {
    Queue<Class<? extends Annotation>> level = new ArrayDeque<>();
    Set<Class<?>> seen = new HashSet<>();
    for (Annotation annotation : method.getDeclaredAnnotations()) {
      level.add(annotation.annotationType());
    }
    for (int depth = 1; !level.isEmpty(); depth++) {
      Queue<Class<? extends Annotation>> next = new ArrayDeque<>();
      for (Class<? extends Annotation> type : level) {
        if (type == DistributedLock.class) {
          return depth;
        }
        if (seen.add(type) && !type.getName().startsWith("java.lang.annotation.")) {
          for (Annotation meta : type.getDeclaredAnnotations()) {
            next.add(meta.annotationType());
          }
        }
      }
      level = next;
    }
    return 0;
  }

  /** Whether the class holds the around body of this very method (same parameters). */
  private static boolean isWoven(Method method, Method[] declared) {
    String prefix = method.getName() + "_aroundBody";
    List<Class<?>> expected = new ArrayList<>();
    if (!Modifier.isStatic(method.getModifiers())) {
      expected.add(method.getDeclaringClass());
    }
    expected.addAll(Arrays.asList(method.getParameterTypes()));
    for (Method candidate : declared) {
      if (candidate.getName().startsWith(prefix)) {
        Class<?>[] parameters = candidate.getParameterTypes();
        if (parameters.length >= expected.size()
            && Arrays.asList(parameters).subList(0, expected.size()).equals(expected)) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@code com.acme.Report.run(String, int)}. */
  static String name(Method method) {
    return Signatures.of(method);
  }
}
