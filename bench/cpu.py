"""The CPU a benchmark ran on, named in every result (bench/'s scripts share it)."""
import platform


def cpu_name():
    """The model name with its family, model and widest vector ISA: these
    hosts name themselves "AMD EPYC" whether Zen 3, 4 or 5."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if ":" in line:
                    key, value = (part.strip() for part in line.split(":", 1))
                    fields.setdefault(key, value)
    except OSError:
        pass
    if "model name" not in fields:
        return platform.processor() or "unknown"
    flags = fields.get("flags", "").split()
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{fields['model name']} (family {fields.get('cpu family', '?')} model {fields.get('model', '?')}, {isa})"
