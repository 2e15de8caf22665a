/*
 * dtype.c - element sizes and names of TensorFlow's DataType values.
 */
#include "graph/dtype.h"

struct dtype_info {
    const char *name;
    unsigned char size;
    unsigned char cls; /* 'f' float, 'i' integer, 'c' complex, 'b' bool, 'o' other */
};

static const struct dtype_info infos[] = {
    [FL_DT_INVALID] = {"invalid", 0, 'o'},
    [FL_DT_FLOAT] = {"float", 4, 'f'},
    [FL_DT_DOUBLE] = {"double", 8, 'f'},
    [FL_DT_INT32] = {"int32", 4, 'i'},
    [FL_DT_UINT8] = {"uint8", 1, 'i'},
    [FL_DT_INT16] = {"int16", 2, 'i'},
    [FL_DT_INT8] = {"int8", 1, 'i'},
    [FL_DT_STRING] = {"string", 0, 'o'},
    [FL_DT_COMPLEX64] = {"complex64", 8, 'c'},
    [FL_DT_INT64] = {"int64", 8, 'i'},
    [FL_DT_BOOL] = {"bool", 1, 'b'},
    [FL_DT_QINT8] = {"qint8", 1, 'i'},
    [FL_DT_QUINT8] = {"quint8", 1, 'i'},
    [FL_DT_QINT32] = {"qint32", 4, 'i'},
    [FL_DT_BFLOAT16] = {"bfloat16", 2, 'f'},
    [FL_DT_QINT16] = {"qint16", 2, 'i'},
    [FL_DT_QUINT16] = {"quint16", 2, 'i'},
    [FL_DT_UINT16] = {"uint16", 2, 'i'},
    [FL_DT_COMPLEX128] = {"complex128", 16, 'c'},
    [FL_DT_HALF] = {"half", 2, 'f'},
    [FL_DT_RESOURCE] = {"resource", 0, 'o'},
    [FL_DT_VARIANT] = {"variant", 0, 'o'},
    [FL_DT_UINT32] = {"uint32", 4, 'i'},
    [FL_DT_UINT64] = {"uint64", 8, 'i'},
    [FL_DT_FLOAT8_E5M2] = {"float8_e5m2", 1, 'f'},
    [FL_DT_FLOAT8_E4M3FN] = {"float8_e4m3fn", 1, 'f'},
    [FL_DT_FLOAT8_E4M3FNUZ] = {"float8_e4m3fnuz", 1, 'f'},
    [FL_DT_FLOAT8_E4M3B11FNUZ] = {"float8_e4m3b11fnuz", 1, 'f'},
    [FL_DT_FLOAT8_E5M2FNUZ] = {"float8_e5m2fnuz", 1, 'f'},
    [FL_DT_INT4] = {"int4", 1, 'i'},
    [FL_DT_UINT4] = {"uint4", 1, 'i'},
    [FL_DT_INT2] = {"int2", 1, 'i'},
    [FL_DT_UINT2] = {"uint2", 1, 'i'},
    [FL_DT_FLOAT4_E2M1FN] = {"float4_e2m1fn", 1, 'f'},
    [FL_DT_FLOAT8_E8M0FNU] = {"float8_e8m0fnu", 1, 'f'},
};

static const char *const ref_names[] = {
    [FL_DT_FLOAT] = "float_ref",       [FL_DT_DOUBLE] = "double_ref",
    [FL_DT_INT32] = "int32_ref",       [FL_DT_UINT8] = "uint8_ref",
    [FL_DT_INT16] = "int16_ref",       [FL_DT_INT8] = "int8_ref",
    [FL_DT_STRING] = "string_ref",     [FL_DT_INT64] = "int64_ref",
    [FL_DT_BOOL] = "bool_ref",         [FL_DT_HALF] = "half_ref",
    [FL_DT_BFLOAT16] = "bfloat16_ref", [FL_DT_RESOURCE] = "resource_ref",
    [FL_DT_VARIANT] = "variant_ref",
};

#define N_INFOS ((int)(sizeof(infos) / sizeof(infos[0])))

bool fl__dtype_valid(int dt) {
    int b = fl_dtype_base(dt);
    return b > 0 && b < N_INFOS && infos[b].name != 0 &&
           (dt < FL_DT_REF_OFFSET || dt > FL_DT_REF_OFFSET);
}

size_t fl__dtype_size(int dt) {
    int b = fl_dtype_base(dt);
    return (b >= 0 && b < N_INFOS) ? infos[b].size : 0;
}

const char *fl__dtype_name(int dt) {
    if (!fl__dtype_valid(dt)) {
        return "invalid";
    }
    if (dt > FL_DT_REF_OFFSET) {
        int b = fl_dtype_base(dt);
        if (b < (int)(sizeof(ref_names) / sizeof(ref_names[0])) && ref_names[b]) {
            return ref_names[b];
        }
        return "ref";
    }
    return infos[dt].name;
}

static int cls(int dt) {
    int b = fl_dtype_base(dt);
    return (b > 0 && b < N_INFOS) ? infos[b].cls : 'o';
}

bool fl__dtype_is_float(int dt) {
    return cls(dt) == 'f';
}
bool fl__dtype_is_integer(int dt) {
    return cls(dt) == 'i';
}
bool fl__dtype_is_complex(int dt) {
    return cls(dt) == 'c';
}

fl_dtype fl__onnx_dtype(int32_t t) {
    static const fl_dtype map[] = {
        [1] = FL_DT_FLOAT,          [2] = FL_DT_UINT8,
        [3] = FL_DT_INT8,           [4] = FL_DT_UINT16,
        [5] = FL_DT_INT16,          [6] = FL_DT_INT32,
        [7] = FL_DT_INT64,          [8] = FL_DT_STRING,
        [9] = FL_DT_BOOL,           [10] = FL_DT_HALF,
        [11] = FL_DT_DOUBLE,        [12] = FL_DT_UINT32,
        [13] = FL_DT_UINT64,        [14] = FL_DT_COMPLEX64,
        [15] = FL_DT_COMPLEX128,    [16] = FL_DT_BFLOAT16,
        [17] = FL_DT_FLOAT8_E4M3FN, [18] = FL_DT_FLOAT8_E4M3FNUZ,
        [19] = FL_DT_FLOAT8_E5M2,   [20] = FL_DT_FLOAT8_E5M2FNUZ,
        [21] = FL_DT_UINT4,         [22] = FL_DT_INT4,
        [23] = FL_DT_FLOAT4_E2M1FN, [24] = FL_DT_FLOAT8_E8M0FNU,
        [25] = FL_DT_UINT2,         [26] = FL_DT_INT2,
    };
    if (t <= 0 || (size_t)t >= sizeof map / sizeof map[0]) {
        return FL_DT_INVALID;
    }
    return map[t];
}

const char *fl__onnx_dtype_name(int32_t t) {
    static const char *const names[] = {
        "UNDEFINED",      "FLOAT",      "UINT8",          "INT8",       "UINT16",   "INT16",
        "INT32",          "INT64",      "STRING",         "BOOL",       "FLOAT16",  "DOUBLE",
        "UINT32",         "UINT64",     "COMPLEX64",      "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
        "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",      "INT4",     "FLOAT4E2M1",
        "FLOAT8E8M0",     "UINT2",      "INT2",
    };
    return t >= 0 && (size_t)t < sizeof names / sizeof names[0] ? names[t] : NULL;
}

fl_status fl__onnx_dtype_error(int32_t t) {
    return t <= 0 ? FL_EINVAL : FL_EUNSUPPORTED;
}
