import { auditContract } from "../../domain/test/contract/AuditContract.ts"
import { storeContract } from "../../domain/test/contract/StoreContract.ts"
import { layerMemory } from "../src/MemoryStore.ts"

storeContract("memory", () => layerMemory)
auditContract("memory", () => layerMemory)
