package dev.locksmith.annotation.processing;

import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/** JVM method descriptors ({@code (Ljava/lang/String;I)V}) of methods seen by the compiler. */
final class Descriptors {
  private Descriptors() {}

  /** The descriptor of the method's erased parameter and return types, as in its class file. */
  static String of(ExecutableElement method, Types types, Elements elements) {
    StringBuilder descriptor = new StringBuilder("(");
    for (VariableElement parameter : method.getParameters()) {
      append(descriptor, types.erasure(parameter.asType()), types, elements);
    }
    descriptor.append(')');
    append(descriptor, types.erasure(method.getReturnType()), types, elements);
    return descriptor.toString();
  }

  private static void append(StringBuilder into, TypeMirror type, Types types, Elements elements) {
    switch (type.getKind()) {
      case BOOLEAN -> into.append('Z');
      case BYTE -> into.append('B');
      case CHAR -> into.append('C');
      case SHORT -> into.append('S');
      case INT -> into.append('I');
      case LONG -> into.append('J');
      case FLOAT -> into.append('F');
      case DOUBLE -> into.append('D');
      case VOID -> into.append('V');
      case ARRAY -> {
        into.append('[');
        append(into, types.erasure(((ArrayType) type).getComponentType()), types, elements);
      }
      case DECLARED -> {
        TypeElement element = (TypeElement) ((DeclaredType) type).asElement();
        into.append('L')
            .append(elements.getBinaryName(element).toString().replace('.', '/'))
            .append(';');
      }
      case TYPEVAR, INTERSECTION -> append(into, types.erasure(type), types, elements);
      default ->
          // An unresolved type (the compilation fails anyway): keep its name for the line.
          into.append('L').append(type.toString().replace('.', '/')).append(';');
    }
  }
}
