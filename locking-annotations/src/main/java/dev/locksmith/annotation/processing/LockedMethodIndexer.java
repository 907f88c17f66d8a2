package dev.locksmith.annotation.processing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.StandardLocation;

/**
 * Writes {@value #INDEX}: one line for every method of the compiled classes that carries
 * {@code @DistributedLock} (directly or through meta-annotations), and for every method that
 * overrides or implements such a method without carrying it itself. An integration reads the index
 * at run time to check that each listed method is really intercepted (the AspectJ integration
 * refuses to start when a listed class was not woven).
 *
 * <p>A line is {@code <binary class name> <method name> <JVM descriptor>}, such as {@code
 * com.acme.Report$Nightly run (Ljava/lang/String;)V}; lines starting with {@code #} are comments.
 * When only some classes are recompiled, the lines of the other classes are kept from the index
 * already in the output directory, as long as their class files are still there.
 *
 * <p>javac finds this processor on the class path up to JDK 22. From JDK 23 on, javac runs
 * processors from the class path only with {@code -proc:full}; otherwise name {@code
 * dev.locksmith:locksmith-annotations} in {@code annotationProcessorPaths} of the
 * maven-compiler-plugin (or in Gradle's {@code annotationProcessor} configuration).
 */
@SupportedAnnotationTypes("*")
public final class LockedMethodIndexer extends AbstractProcessor {
  /** Where the index is written, relative to the class output directory. */
  public static final String INDEX = "META-INF/locksmith/locked-methods";

  static final String ANNOTATION = "dev.locksmith.annotation.DistributedLock";

  private final TreeSet<String> lines = new TreeSet<>();
  private final Set<String> compiledTypes = new HashSet<>();

  /** Created by the compiler through {@code META-INF/services}. */
  public LockedMethodIndexer() {}

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    if (round.processingOver()) {
      if (!round.errorRaised()) {
        write();
      }
      return false;
    }
    for (Element root : round.getRootElements()) {
      if (root instanceof TypeElement type) {
        index(type);
      }
    }
    // Never claims an annotation: other processors still see every one.
    return false;
  }

  private void index(TypeElement type) {
    String className = processingEnv.getElementUtils().getBinaryName(type).toString();
    compiledTypes.add(className);
    for (Element member : type.getEnclosedElements()) {
      if (member instanceof TypeElement nested) {
        index(nested);
      } else if (member.getKind() == ElementKind.METHOD) {
        ExecutableElement method = (ExecutableElement) member;
        refuseNotKeptAtRunTime(method);
        if (isLocked(method) || overridesLocked(type, method)) {
          lines.add(line(className, method));
        }
      }
    }
    if (type.getKind() != ElementKind.INTERFACE && type.getKind() != ElementKind.ANNOTATION_TYPE) {
      for (ExecutableElement inherited : inheritedBodiesOfLockedMethods(type)) {
        lines.add(line(className, inherited));
      }
    }
  }

  private String line(String className, ExecutableElement method) {
    return className
        + " "
        + method.getSimpleName()
        + " "
        + Descriptors.of(method, processingEnv.getTypeUtils(), processingEnv.getElementUtils());
  }

  /**
   * The methods {@code type} inherits from a superclass that implement, for {@code type}, a locked
   * method of one of its interfaces ({@code class Impl extends PlainBase implements Api}). No
   * member of {@code type} carries the annotation, yet the weaving check must look at it: the
   * aspect sees the body in the superclass, which the annotation does not reach.
   */
  private List<ExecutableElement> inheritedBodiesOfLockedMethods(TypeElement type) {
    List<ExecutableElement> locked = new ArrayList<>();
    lockedInterfaceMethods(type.asType(), locked);
    if (locked.isEmpty()) {
      return List.of();
    }
    List<? extends Element> members;
    try {
      members = processingEnv.getElementUtils().getAllMembers(type);
    } catch (RuntimeException e) {
      return List.of(); // ajc cannot list some types from the class path, as in membersOf
    }
    List<ExecutableElement> found = new ArrayList<>();
    for (Element member : members) {
      if (member.getKind() != ElementKind.METHOD
          || member.getEnclosingElement().equals(type)
          || member.getEnclosingElement().getKind() == ElementKind.INTERFACE
          || member.getModifiers().contains(Modifier.STATIC)
          || member.getModifiers().contains(Modifier.ABSTRACT)) {
        continue;
      }
      ExecutableElement method = (ExecutableElement) member;
      for (ExecutableElement lockedMethod : locked) {
        if (lockedMethod.getSimpleName().contentEquals(method.getSimpleName())
            && processingEnv.getElementUtils().overrides(method, lockedMethod, type)) {
          found.add(method);
          break;
        }
      }
    }
    return found;
  }

  /** The locked methods of the interfaces {@code from} extends or implements, at any depth. */
  private void lockedInterfaceMethods(TypeMirror from, List<ExecutableElement> into) {
    for (TypeElement parentType : supertypes(from)) {
      if (parentType.getKind() == ElementKind.INTERFACE) {
        for (Element member : membersOf(parentType)) {
          if (member.getKind() == ElementKind.METHOD && isLocked((ExecutableElement) member)) {
            into.add((ExecutableElement) member);
          }
        }
      }
    }
  }

  /** Every supertype of {@code from} at any depth, once each, but the platform's. */
  private List<TypeElement> supertypes(TypeMirror from) {
    List<TypeElement> found = new ArrayList<>();
    addSupertypes(from, found, new HashSet<>());
    return found;
  }

  private void addSupertypes(TypeMirror from, List<TypeElement> into, Set<String> seen) {
    for (TypeMirror parent : processingEnv.getTypeUtils().directSupertypes(from)) {
      if (parent.getKind() != TypeKind.DECLARED) {
        continue;
      }
      TypeElement parentType = (TypeElement) ((DeclaredType) parent).asElement();
      String parentName = parentType.getQualifiedName().toString();
      if (seen.add(parentName) && !isPlatformType(parentName)) {
        into.add(parentType);
        addSupertypes(parent, into, seen);
      }
    }
  }

  /** Whether the method carries the annotation itself, directly or through meta-annotations. */
  private static boolean isLocked(ExecutableElement method) {
    for (AnnotationMirror mirror : method.getAnnotationMirrors()) {
      if (standsFor(mirror.getAnnotationType(), new HashSet<>())) {
        return true;
      }
    }
    return false;
  }

  /**
   * An error on each annotation of the method that stands for the lock through an annotation not
   * kept at run time: the engine and the aspect see only those, so the method would run unlocked.
   */
  private void refuseNotKeptAtRunTime(ExecutableElement method) {
    for (AnnotationMirror mirror : method.getAnnotationMirrors()) {
      String lost = notKeptAtRunTime(mirror.getAnnotationType(), new HashSet<>());
      if (lost != null) {
        processingEnv
            .getMessager()
            .printMessage(
                Diagnostic.Kind.ERROR,
                "@"
                    + lost
                    + " stands for @DistributedLock but is not @Retention(RetentionPolicy.RUNTIME),"
                    + " so the lock is not seen at run time and "
                    + method.getSimpleName()
                    + "() would run unlocked: add @Retention(RetentionPolicy.RUNTIME) to "
                    + lost,
                method,
                mirror);
      }
    }
  }

  /**
   * The first annotation on the way from {@code annotationType} to {@code @DistributedLock} that is
   * not kept at run time, or {@code null} (also when it does not stand for the lock).
   */
  private static String notKeptAtRunTime(DeclaredType annotationType, Set<String> seen) {
    TypeElement element = (TypeElement) annotationType.asElement();
    String name = element.getQualifiedName().toString();
    if (name.equals(ANNOTATION) || !seen.add(name) || name.startsWith("java.lang.annotation.")) {
      return null;
    }
    for (AnnotationMirror meta : element.getAnnotationMirrors()) {
      if (standsFor(meta.getAnnotationType(), new HashSet<>())) {
        Retention retention = element.getAnnotation(Retention.class);
        if (retention == null || retention.value() != RetentionPolicy.RUNTIME) {
          return name;
        }
        return notKeptAtRunTime(meta.getAnnotationType(), seen);
      }
    }
    return null;
  }

  private static boolean standsFor(DeclaredType annotationType, Set<String> seen) {
    TypeElement element = (TypeElement) annotationType.asElement();
    String name = element.getQualifiedName().toString();
    if (name.equals(ANNOTATION)) {
      return true;
    }
    if (!seen.add(name) || name.startsWith("java.lang.annotation.")) {
      return false;
    }
    for (AnnotationMirror meta : element.getAnnotationMirrors()) {
      if (standsFor(meta.getAnnotationType(), seen)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the method overrides or implements a method that carries the annotation. */
  private boolean overridesLocked(TypeElement type, ExecutableElement method) {
    Set<Modifier> modifiers = method.getModifiers();
    if (modifiers.contains(Modifier.STATIC) || modifiers.contains(Modifier.PRIVATE)) {
      return false;
    }
    for (TypeElement parentType : supertypes(type.asType())) {
      for (Element member : membersOf(parentType)) {
        if (member.getKind() == ElementKind.METHOD
            && member.getSimpleName().contentEquals(method.getSimpleName())
            && isLocked((ExecutableElement) member)
            && processingEnv
                .getElementUtils()
                .overrides(method, (ExecutableElement) member, type)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Types of the JDK, which never carry the annotation (and which ajc cannot always list). */
  private static boolean isPlatformType(String name) {
    return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.");
  }

  /**
   * The members of a supertype. ajc's compiler (Eclipse's) fails on some types from the class path
   * while listing them; such a type is reported and skipped instead of failing the build.
   */
  private List<? extends Element> membersOf(TypeElement type) {
    try {
      return type.getEnclosedElements();
    } catch (RuntimeException e) {
      processingEnv
          .getMessager()
          .printMessage(
              Diagnostic.Kind.WARNING,
              "Cannot list the methods of "
                  + type.getQualifiedName()
                  + " to find @DistributedLock methods overridden by the classes compiled here ("
                  + e
                  + "); methods inheriting the annotation from it are not listed in "
                  + INDEX);
      return List.of();
    }
  }

  private void write() {
    TreeSet<String> merged = new TreeSet<>(lines);
    boolean existed = keepEarlierLines(merged);
    if (merged.isEmpty() && !existed) {
      return;
    }
    try {
      FileObject index =
          processingEnv.getFiler().createResource(StandardLocation.CLASS_OUTPUT, "", INDEX);
      try (Writer out = index.openWriter()) {
        out.write(
            "# @DistributedLock methods of these classes, written by "
                + getClass().getName()
                + ": binary class name, method name, descriptor\n");
        for (String line : merged) {
          out.write(line);
          out.write('\n');
        }
      }
    } catch (IOException e) {
      processingEnv
          .getMessager()
          .printMessage(
              Diagnostic.Kind.ERROR,
              "Cannot write "
                  + INDEX
                  + " (the list of @DistributedLock methods that the AspectJ integration checks"
                  + " at start-up): "
                  + e);
    }
  }

  /**
   * Adds the lines of an index already in the output directory for classes that this compilation
   * did not compile and whose class files are still there (an incremental build).
   *
   * @return whether there was such an index
   */
  private boolean keepEarlierLines(TreeSet<String> into) {
    FileObject earlier;
    try {
      earlier = processingEnv.getFiler().getResource(StandardLocation.CLASS_OUTPUT, "", INDEX);
    } catch (IOException | IllegalArgumentException e) {
      return false;
    }
    try (InputStream in = earlier.openInputStream();
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        String trimmed = line.strip();
        if (trimmed.isEmpty() || trimmed.startsWith("#")) {
          continue;
        }
        String className = trimmed.split(" ", 2)[0];
        if (!compiledTypes.contains(className) && classFileExists(className)) {
          into.add(trimmed);
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private boolean classFileExists(String binaryName) {
    int dot = binaryName.lastIndexOf('.');
    String packageName = dot < 0 ? "" : binaryName.substring(0, dot);
    String fileName = binaryName.substring(dot + 1) + ".class";
    try (InputStream in =
        processingEnv
            .getFiler()
            .getResource(StandardLocation.CLASS_OUTPUT, packageName, fileName)
            .openInputStream()) {
      return in != null;
    } catch (IOException | IllegalArgumentException e) {
      return false;
    }
  }
}
